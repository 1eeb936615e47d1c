/**
 * `baton serve-agents --all`: every demo agent of the catalog on consecutive ports, each card naming
 * the public host, as docker-compose.yml runs it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { demoAgents } from '../../src/demo/catalog';
import { CliProcess, runCli, userEnv } from '../../infra/cli-process';
import { freePortBlock } from '../../src/runtime/free-port';

describe('baton serve-agents', () => {
  it('serves every demo agent on consecutive ports with cards naming the public host', async () => {
    const base = await freePortBlock(demoAgents().length);
    const served = new CliProcess(['serve-agents', '--all', '--port', String(base), '--public-host', 'agents.internal'], userEnv());
    try {
      await served.waitFor('Ctrl-C stops them');
      const names = demoAgents().map((a) => a.name);
      for (const [i, name] of names.entries())
        assert.match(served.stdout, new RegExp(`^Agent ${name} serving its card at http://agents\\.internal:${base + i}/`, 'm'));
      const card = (await (await fetch(`http://127.0.0.1:${base + 6}/.well-known/agent-card.json`)).json()) as {
        name: string;
        supportedInterfaces?: { url: string }[];
      };
      assert.equal(card.name, names[6]);
      assert.ok(
        card.supportedInterfaces?.every((i) => i.url.startsWith(`http://agents.internal:${base + 6}/`)),
        JSON.stringify(card.supportedInterfaces),
      );
    } finally {
      served.child.kill('SIGTERM');
    }
    assert.deepEqual(await served.exited, { code: 0, signal: null });
    const both = await runCli(['serve-agents', '--all', '--public-url', 'http://x:1'], userEnv());
    assert.equal(both.code, 2);
    assert.match(both.stderr, /with --all, give --public-host/);
  });
});
