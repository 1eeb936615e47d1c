/**
 * The package as a user gets it: packed into a tarball, installed by the refund-approval example (a
 * project outside this one), its entries loading no demo or test code, and the example's own test
 * green against the run's Temporal server and the demo agent served by the installed `baton` CLI.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
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
  let packed: { size: number; unpackedSize: number; entryCount: number } | undefined;

  before(async () => {
    const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root, env: cleanEnv() });
    const [info] = JSON.parse(pack.stdout) as {
      filename: string;
      size: number;
      unpackedSize: number;
      entryCount: number;
      files: { path: string }[];
    }[];
    files = info?.files.map((f) => f.path) ?? [];
    packed = info;
    cpSync(join(root, 'examples', 'refund-approval'), example, {
      recursive: true,
      filter: (src) => !/[/\\](node_modules|lib|vendor)$/.test(src),
    });
    mkdirSync(join(example, 'vendor'));
    renameSync(join(work, info?.filename ?? 'missing.tgz'), join(example, 'vendor', 'baton.tgz'));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: example, env: cleanEnv(), timeout: 300_000 });
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  it('is the package baton-a2a, with only runtime code in it (its size is reported)', (t) => {
    assert.ok(packed);
    t.diagnostic(
      `tarball ${(packed.size / 1024).toFixed(0)} KiB, ${packed.entryCount} files, ${(packed.unpackedSize / 1024 / 1024).toFixed(1)} MiB unpacked`,
    );
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; private?: boolean; bin: object };
    assert.equal(manifest.name, 'baton-a2a');
    assert.equal(manifest.private, undefined, 'publishable');
    assert.deepEqual(manifest.bin, { baton: 'lib/src/cli/main.js' });
    // Test, benchmark and cluster infrastructure lives outside src/ and is never shipped.
    assert.deepEqual(
      files.filter((f) => /^lib\/(infra|test|bench|scripts)\/|^lib\/src\/(chaos|runtime\/cluster)\/|\.sh$/.test(f)),
      [],
    );
    assert.ok(files.includes('ui/index.html'), 'the web app, for baton ui');
    assert.ok(files.includes('CHANGELOG.md'));
  });

  it('runs the installed CLI with npx', async () => {
    const { stdout } = await run('npx', ['--no-install', 'baton', '--version'], { cwd: example, env: cleanEnv() });
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    assert.equal(stdout.trim(), manifest.version);
  });

  it('ships compiled code with type declarations and no tests or sources', () => {
    for (const entry of ['lib/src/api/client', 'lib/src/api/worker', 'lib/src/api/dev', 'lib/workflows/api']) {
      assert.ok(files.includes(`${entry}.js`) && files.includes(`${entry}.d.ts`), `${entry} with its types`);
    }
    assert.ok(files.includes('lib/src/cli/main.js'), 'the CLI');
    assert.ok(files.includes('lib/workflows/baton-nexus-service.schema.json'), "the Nexus service's JSON Schema, beside its types");
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
