/**
 * The package as a user gets it: packed into a tarball, installed by the refund-approval example (a
 * project outside this one), its entries loading no demo or test code, and the example's own test
 * green against the run's Temporal server and the demo agent served by the installed `baton` CLI.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/runtime/project-root';
import { testServer } from '../helpers/temporal';

const run = promisify(execFile);

/**
 * The environment without the outer `npm test`'s npm_* settings, and without NODE_TEST_CONTEXT, which
 * would make the example's own test runner report in the binary protocol meant for a parent runner.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && k !== 'NODE_TEST_CONTEXT'));
  return { ...env, ...extra };
}

describe('the packed package, used by a project outside this repo', () => {
  const root = projectRoot();
  const work = mkdtempSync(join(tmpdir(), 'baton-example-'));
  const example = join(work, 'refund-approval');
  let files: string[] = [];

  before(async () => {
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root, env: cleanEnv() });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    files = info?.files.map((f) => f.path) ?? [];
    cpSync(join(root, 'examples', 'refund-approval'), example, {
      recursive: true,
      filter: (src) => !/[/\\](node_modules|lib|vendor)$/.test(src),
    });
    mkdirSync(join(example, 'vendor'));
    renameSync(join(work, info?.filename ?? 'missing.tgz'), join(example, 'vendor', 'baton.tgz'));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: example, env: cleanEnv(), timeout: 300_000 });
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  it('ships compiled code with type declarations and no tests or sources', () => {
    for (const entry of ['lib/src/api/client', 'lib/src/api/worker', 'lib/src/api/dev', 'lib/workflows/api']) {
      assert.ok(files.includes(`${entry}.js`) && files.includes(`${entry}.d.ts`), `${entry} with its types`);
    }
    assert.ok(files.includes('lib/src/cli/main.js'), 'the CLI');
    assert.deepEqual(
      files.filter((f) => /^(lib\/)?test\/|^examples\/|^src\/|^workflows\/|\.ts$(?<!\.d\.ts)|\.map$/.test(f)),
      [],
    );
  });

  it('loads no demo, test or CLI code through its entries', async () => {
    const probe = `for (const e of ['baton-a2a', 'baton-a2a/worker', 'baton-a2a/workflow', 'baton-a2a/dev']) require(e);
      console.log(JSON.stringify(Object.keys(require.cache).filter((p) => p.includes('node_modules/baton-a2a/'))));`;
    const { stdout } = await run(process.execPath, ['-e', probe], { cwd: example, env: cleanEnv() });
    const loaded = JSON.parse(stdout) as string[];
    assert.ok(loaded.some((p) => p.endsWith('lib/workflows/api.js')));
    assert.deepEqual(
      loaded.filter((p) => /\/(demo|test|cli)\//.test(p)),
      [],
    );
  });

  it("passes the example's own test against a real server and the demo agent", async () => {
    const { address } = await testServer();
    const { stdout } = await run('npm', ['test'], {
      cwd: example,
      env: cleanEnv({ TEMPORAL_ADDRESS: address }),
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.match(stdout, /^# pass 4$/m);
    assert.match(stdout, /^# fail 0$/m);
  });
});
