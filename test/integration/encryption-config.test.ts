/**
 * Payload encryption misconfigured, as a user meets it: `baton config check` lists each key problem,
 * and a client command stops with one line naming the key and the fix, before reaching Temporal.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli, saysOneLine, userEnv } from '../../infra/cli-process';

const dir = mkdtempSync(join(tmpdir(), 'baton-encryption-config-'));
const config = join(dir, 'baton.config.yaml');
writeFileSync(
  config,
  [
    'encryption:',
    '  currentKey: k2',
    '  keys:',
    '    k1: { fromFile: ' + JSON.stringify(join(dir, 'no-such-key')) + ' }',
    '    k2: { fromEnv: BATON_TEST_K2 }',
    '',
  ].join('\n'),
);

describe('payload encryption misconfigured', () => {
  it('config check names the missing variable, then the unreadable file, then the short key', async () => {
    const unset = await runCli(['--config', config, 'config', 'check', '--json'], userEnv({ BATON_TEST_K2: undefined }));
    assert.equal(unset.code, 1);
    const problems = (JSON.parse(unset.stdout) as { problems: string[] }).problems;
    assert.ok(
      problems.some((p) => /^encryption\.keys\.k1: cannot read the file \S+no-such-key: ENOENT$/.test(p)),
      problems.join('\n'),
    );
    writeFileSync(join(dir, 'no-such-key'), randomBytes(32).toString('base64'));
    const short = await runCli(['--config', config, 'config', 'check'], userEnv({ BATON_TEST_K2: randomBytes(20).toString('base64') }));
    assert.equal(short.code, 1);
    assert.match(
      short.stdout,
      /encryption\.keys\.k2: the variable BATON_TEST_K2 holds 20 bytes, not 32; make one with openssl rand -base64 32/,
    );
    const good = await runCli(['--config', config, 'config', 'check'], userEnv({ BATON_TEST_K2: randomBytes(32).toString('hex') }));
    assert.match(good.stdout, /: ok \(/, good.stdout + good.stderr);
  });

  it('a client command stops with one line, before connecting', async () => {
    writeFileSync(join(dir, 'no-such-key'), randomBytes(32).toString('base64'));
    saysOneLine(
      await runCli(['--config', config, 'ls'], userEnv({ BATON_TEST_K2: undefined, TEMPORAL_ADDRESS: '127.0.0.1:1' })),
      1,
      /^baton: encryption\.keys\.k2: the variable BATON_TEST_K2 is not set or empty; set it to a 32-byte key \(openssl rand -base64 32\)$/,
    );
  });
});
