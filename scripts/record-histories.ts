/**
 * `npm run record-histories`: records the replay corpus (test/replay/histories) from the current code
 * on a real server. It starts a dev server of its own, runs the integration and chaos tests against it
 * as drivers (they walk every path: input rounds, auth, review, push, poll, streams that drop, cancels
 * and their races, deadlines, budgets, crashes, graphs, embedded delegations), then keeps for each
 * path the smallest histories that walked it, as the JSON that `temporal workflow show -o json` writes.
 *
 * `--reindex` recomputes the paths of the histories already there (after `paths.ts` changed).
 *
 * A recording replaces the corpus of the version it records (`<version>-*` files) and leaves other
 * versions' alone: the corpus is what each release wrote, and the replay test holds new workflow
 * code to all of it. Remove an old version's files only when a release deliberately stops supporting
 * its in-flight workflows (say so in the release notes).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { ENCRYPTED_ENCODING } from '../src/codec/encryption-codec';
import { projectCliPaths, startTemporal } from '../src/runtime/temporal-server';
import { pathsOf, REQUIRED_PATHS, workflowTypeOf, type ReplayPath } from '../test/replay/paths';

const root = join(__dirname, '..', '..');
const out = join(root, 'test', 'replay', 'histories');
/** A payload's `encoding` metadata when Baton's codec sealed it, as the JSON export writes it (base64). */
const ENCRYPTED = Buffer.from(ENCRYPTED_ENCODING).toString('base64');

/** Histories kept per path: two, so one odd recording does not stand for a path alone. */
const PER_PATH = 2;

interface Recorded {
  workflowId: string;
  history: temporal.api.history.v1.IHistory;
  json: string;
  paths: ReplayPath[];
  events: number;
  closed: boolean;
}

/** Runs the driver tests against the recording server; resolves with the names of those that failed. */
function runDrivers(address: string, files: string[]): Promise<string[]> {
  return new Promise((resolveRun) => {
    const child = spawn(
      process.execPath,
      ['--test', '--test-reporter=tap', '--test-concurrency=2', '--test-timeout=180000', '--test-force-exit', ...files],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, TEMPORAL_ADDRESS: address, BATON_LOG_LEVEL: 'error' },
      },
    );
    const failed: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^\s*not ok \d+ - (.*)$/.exec(line);
      if (m?.[1]) failed.push(m[1]);
    });
    child.once('close', (code) => resolveRun(code === 0 ? [] : failed.length ? failed : [`the test runner exited with ${code}`]));
  });
}

/** The CLI's own JSON of a history: what `temporal workflow show -o json` writes, every field kept. */
function exportJson(cli: string, address: string, namespace: string, workflowId: string, runId: string): string {
  const shown = spawnSync(
    cli,
    ['workflow', 'show', '--address', address, '--namespace', namespace, '-w', workflowId, '-r', runId, '-o', 'json'],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (shown.status !== 0) throw new Error(`temporal workflow show ${workflowId}: ${shown.stderr.trim()}`);
  return shown.stdout;
}

async function collect(address: string, namespace: string, cli: string): Promise<Recorded[]> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace });
    const found: Recorded[] = [];
    const query = "WorkflowType IN ('delegationWorkflow', 'taskGraphWorkflow', 'taskPushWorkflow')";
    for await (const wf of client.workflow.list({ query, pageSize: 1000 })) {
      // The SDK's historyToJSON drops the SDK flags in each workflow task's metadata, which replay needs.
      const json = exportJson(cli, address, namespace, wf.workflowId, wf.runId);
      // A history written with payload encryption (the encryption tests) replays only with its keys.
      if (json.includes(ENCRYPTED)) continue;
      const history = historyFromJSON(JSON.parse(json));
      const paths = pathsOf(history);
      if (paths.length) {
        const events = history.events?.length ?? 0;
        found.push({ workflowId: wf.workflowId, history, json, paths, events, closed: wf.status.name !== 'RUNNING' });
      }
    }
    return found;
  } finally {
    await connection.close();
  }
}

/** For each path, the smallest closed histories that walked it (running ones only where none closed). */
function choose(found: Recorded[]): { r: Recorded; chosenFor: ReplayPath }[] {
  const chosen = new Map<Recorded, ReplayPath>();
  const bySize = [...found].sort((a, b) => Number(b.closed) - Number(a.closed) || a.events - b.events);
  for (const path of REQUIRED_PATHS) {
    for (const r of bySize.filter((x) => x.paths.includes(path)).slice(0, PER_PATH)) if (!chosen.has(r)) chosen.set(r, path);
  }
  return [...chosen].map(([r, chosenFor]) => ({ r, chosenFor }));
}

interface CorpusIndex {
  recordedWith: { version: string; commit: string };
  /** `workflowId`: replay needs it, since workflow code derives its children's ids from it. */
  histories: { file: string; workflowId: string; workflowType: string; paths: ReplayPath[]; events: number }[];
}

function gitCommit(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'workflows', 'src/shared'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  return `${head || 'unknown'}${dirty ? ' with uncommitted workflow changes' : ''}`;
}

/** Recomputes each history's paths in every index (after `paths.ts` learned to tell a new path). */
function reindex(): void {
  for (const name of readdirSync(out).filter((f) => f.endsWith('-index.json'))) {
    const index = JSON.parse(readFileSync(join(out, name), 'utf8')) as CorpusIndex;
    for (const h of index.histories) h.paths = pathsOf(historyFromJSON(JSON.parse(readFileSync(join(out, h.file), 'utf8'))));
    writeFileSync(join(out, name), `${JSON.stringify(index, null, 1)}\n`);
  }
}

async function main(): Promise<number> {
  if (process.argv.includes('--reindex')) {
    reindex();
    return 0;
  }
  // The version of the code that writes the histories (package.json, as the recording runs it).
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const server = await startTemporal({ uiPort: false, own: true });
  let found: Recorded[];
  try {
    process.stderr.write(`recording on ${server.address}: running the integration and chaos tests as drivers (about 6 minutes)\n`);
    const drivers = [join(root, 'lib', 'test', 'integration'), join(root, 'lib', 'test', 'chaos')];
    const failed = await runDrivers(server.address, drivers);
    if (failed.length) {
      process.stderr.write(`${failed.length} driver test(s) failed; their histories are recorded all the same, check them:\n`);
      for (const name of failed) process.stderr.write(`  not ok: ${name}\n`);
    }
    const cli = projectCliPaths().find((p) => existsSync(p));
    if (!cli) throw new Error('no temporal CLI in .baton/tools: run npm run setup');
    found = await collect(server.address, server.namespace, cli);
  } finally {
    await server.stop();
  }
  const chosen = choose(found);
  const missing = REQUIRED_PATHS.filter((p) => !chosen.some(({ r }) => r.paths.includes(p)));
  if (missing.length) {
    process.stderr.write(`no recorded history walked: ${missing.join(', ')}; the corpus was left as it was\n`);
    return 1;
  }
  mkdirSync(out, { recursive: true });
  for (const f of readdirSync(out).filter((name) => name.startsWith(`${version}-`))) rmSync(join(out, f));
  const index: CorpusIndex = {
    recordedWith: { version: version, commit: gitCommit() },
    histories: chosen.map(({ r, chosenFor }, i) => {
      const file = `${version}-${String(i).padStart(2, '0')}-${chosenFor}.json`;
      writeFileSync(join(out, file), r.json.endsWith('\n') ? r.json : `${r.json}\n`);
      return { file, workflowId: r.workflowId, workflowType: workflowTypeOf(r.history), paths: r.paths, events: r.events };
    }),
  };
  writeFileSync(join(out, `${version}-index.json`), `${JSON.stringify(index, null, 1)}\n`);
  process.stderr.write(`kept ${chosen.length} of ${found.length} histories, covering ${REQUIRED_PATHS.length} paths, in ${out}\n`);
  return 0;
}

void main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exitCode = 1;
  },
);
