/**
 * The long chaos campaign, outside CI: `npm run chaos -- --kill-runs 50 --fuzz 10000`. Runs the
 * fuzzers, the refusal matrices, Temporal server restarts, worker SIGKILL runs and faults on the wire,
 * prints the figures and writes docs/RELIABILITY.md with the command, date, machine and versions.
 * `--only wire` runs the wire faults alone and replaces only their section of the file; `--cluster`
 * runs the campaign on the real cluster (./cluster-campaign.ts) and replaces only its section.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { projectRoot } from '../../src/runtime/project-root';
import { TEMPORAL_CLI_VERSION } from '../../src/runtime/temporal-server';
import { stopTestServer, testServer } from '../helpers/temporal';
import { fuzzBoundaries, type FuzzReport } from './fuzz';
import { campaignAgent, killRun, restartServerRun, type CrashRunReport, type RestartReport } from './kill-campaign';
import { MATRICES } from './all-matrices';
import type { MatrixReport } from './matrices';
import { installedVersion as version } from '../../infra/versions';
import { agentLinkRuns, frontendLinkRuns, servedLinkRuns, wireScenarios, type WireOptions, type WireReport } from './wire-faults';
import { sectionOf, spliceSection, WIRE_HEADING, wireSection } from './wire-report';
import { CLUSTER_HEADING, clusterCampaign } from './cluster-campaign';

type Say = (line: string) => void;

/** Every wire scenario on every link; `command` is what the section says reproduces it. */
async function wireRuns(opts: WireOptions & { downMs: number; command: string }, say: Say): Promise<string[]> {
  const started = Date.now();
  const scenarios = wireScenarios(opts.downMs);
  const reports: WireReport[] = [];
  for (const runs of [agentLinkRuns, frontendLinkRuns, servedLinkRuns]) {
    for (const r of await runs(scenarios, opts)) {
      reports.push(r);
      say(
        `  ${r.link}, ${r.scenario}: lost ${r.lost}, duplicates ${r.duplicates}, wrong ${r.wrongOutcomes}, settled ${r.settleMs} ms after it cleared`,
      );
    }
  }
  const bad = reports.reduce((n, r) => n + r.lost + r.duplicates + r.wrongOutcomes, 0);
  if (bad) process.exitCode = 1;
  return wireSection(reports, { ...opts, tookMs: Date.now() - started });
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'kill-runs': { type: 'string', default: '50' },
      'per-run': { type: 'string', default: '3' },
      fuzz: { type: 'string', default: '10000' },
      restarts: { type: 'string', default: '3' },
      'wire-per-run': { type: 'string', default: '6' },
      'wire-hold': { type: 'string', default: '10' },
      'wire-down': { type: 'string', default: '30' },
      only: { type: 'string' },
      cluster: { type: 'boolean', default: false },
      'cluster-kill-runs': { type: 'string', default: '10' },
      'cluster-rounds': { type: 'string', default: '2' },
      out: { type: 'string', default: join(projectRoot(), 'docs', 'RELIABILITY.md') },
    },
  });
  const killRuns = Number(values['kill-runs']);
  const perRun = Number(values['per-run']);
  const fuzzRuns = Number(values.fuzz);
  const restarts = Number(values.restarts);
  const wireFlags = `--wire-per-run ${values['wire-per-run']} --wire-hold ${values['wire-hold']} --wire-down ${values['wire-down']}`;
  const wire = {
    perRun: Number(values['wire-per-run']),
    holdMs: Number(values['wire-hold']) * 1000,
    downMs: Number(values['wire-down']) * 1000,
    settleWithinMs: 180_000,
  };
  const command = `npm run chaos -- --kill-runs ${killRuns} --per-run ${perRun} --fuzz ${fuzzRuns} --restarts ${restarts} ${wireFlags}`;
  const started = Date.now();
  // Retries are expected here by design; only errors are worth printing.
  installTemporalRuntime(pino({ level: 'error' }, pino.destination(2)));
  const say: Say = (line) => void process.stderr.write(`${line}\n`);
  if (values.cluster) {
    const flags = `--cluster-kill-runs ${values['cluster-kill-runs']} --cluster-rounds ${values['cluster-rounds']} --per-run ${perRun}`;
    // What `npm run test:cluster` sets up first: PostgreSQL, openssl, Go, the server and MinIO (once).
    const setup = spawnSync('bash', [join(projectRoot(), 'infra', 'install-cluster-tools.sh')], { stdio: 'inherit' });
    if (setup.status !== 0) throw new Error('the cluster tier could not be set up (see above): `npm run setup -- --cluster` says why');
    say('the campaign on the real cluster…');
    const { lines: section, bad } = await clusterCampaign(
      {
        killRuns: Number(values['cluster-kill-runs']),
        perRun,
        rounds: Number(values['cluster-rounds']),
        wire,
        command: `npm run chaos -- --cluster ${flags} ${wireFlags}`,
      },
      say,
    );
    await stopTestServer();
    writeFileSync(values.out, spliceSection(readFileSync(values.out, 'utf8'), CLUSTER_HEADING, section));
    say(`wrote the cluster section of ${values.out}`);
    return bad ? 1 : 0;
  }
  if (values.only !== undefined) {
    if (values.only !== 'wire') throw new Error(`--only ${values.only}: only \`wire\` runs alone`);
    say('faults on the wire…');
    const section = await wireRuns({ ...wire, command: `npm run chaos -- --only wire ${wireFlags}` }, say);
    await stopTestServer();
    writeFileSync(values.out, spliceSection(readFileSync(values.out, 'utf8'), WIRE_HEADING, section));
    say(`wrote the wire section of ${values.out}`);
    return process.exitCode === 1 ? 1 : 0;
  }

  say(`fuzzing ${fuzzRuns} cases per boundary…`);
  const fuzz: FuzzReport[] = await fuzzBoundaries(fuzzRuns);
  for (const f of fuzz)
    say(
      `  ${f.boundary}: ${f.cases} cases, ${f.accepted} accepted, ${f.refused} refused, ${f.crashes} crashes, ${f.falseSuccesses} false successes`,
    );

  await testServer();
  say('refusal matrices…');
  const matrices: MatrixReport[] = [];
  for (const [, run] of MATRICES) matrices.push(await run());
  for (const m of matrices)
    say(`  ${m.matrix}: ${m.refused}/${m.cases} refused${m.let_through.length ? ` (let through: ${m.let_through.join(', ')})` : ''}`);

  const agent = await campaignAgent(20261202).start();
  const streamingAgent = await campaignAgent(20261203, 'stream').start();
  let restart: RestartReport;
  const kills: CrashRunReport[] = [];
  try {
    say(`Temporal server stopped and restarted ${restarts} time(s) mid-run…`);
    restart = await restartServerRun(agent, restarts, perRun * 2);
    say(`  ${JSON.stringify(restart)}`);
    let seed = 20261202;
    const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let run = 1; run <= killRuns; run++) {
      // Every other run streams: its sends and observations take the other path.
      const report = await killRun(run % 2 ? agent : streamingAgent, run, perRun, random);
      kills.push(report);
      say(
        `  SIGKILL run ${run}/${killRuns}: killed after ${report.killedAfterMs} ms, lost ${report.lost}, duplicates ${report.duplicates}, wrong ${report.wrongOutcomes}, ${report.tookMs} ms`,
      );
    }
  } finally {
    await agent.close();
    await streamingAgent.close();
  }
  say('faults on the wire…');
  const wireLines = await wireRuns({ ...wire, command }, say);
  await stopTestServer();

  const sum = (k: keyof CrashRunReport): number => kills.reduce((n, r) => n + Number(r[k]), 0);
  const zero = (n: number): string => (n === 0 ? '0 ✅' : `${n} ❌`);
  const faults = [agent, streamingAgent].flatMap((a) => Object.entries(a.faults).map(([k, v]) => `${a.name}: ${k} ${v}`)).join(', ');
  const lines = [
    '# Reliability and security figures',
    '',
    'Measured by the chaos campaign, not by hand. Reproduce with:',
    '',
    '```bash',
    command,
    '```',
    '',
    `Date ${new Date().toISOString().slice(0, 10)}; ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; Temporal CLI ${TEMPORAL_CLI_VERSION} (dev server, SQLite); @temporalio/* ${version('@temporalio/worker')}; @a2a-js/sdk ${version('@a2a-js/sdk')}; fast-check ${version('fast-check')}. The campaign took ${Math.round((Date.now() - started) / 60_000)} min.`,
    '',
    'The short form of every part runs in CI (`test/chaos/`, part of `npm test`): 2 SIGKILL runs, one server restart, 400 fuzz cases per boundary, every matrix, and every wire fault on every link (4 delegations each, faults of 5 s, the link down for 30 s).',
    '',
    '## Worker crashes (SIGKILL) and server restarts',
    '',
    `Each run starts ${perRun} delegations to a fault agent, \`chaos-desk\` (polled) in odd runs and \`chaos-stream\` (sends on a stream, followed by subscription) in even ones (each drops the connection after creating a task 15% of the time and answers 5xx bursts 5% of the time; every task works 1.5 s), SIGKILLs the worker process 0.2 to 2.5 s later, starts a new worker and waits for every outcome. Faults injected over the campaign: ${faults || 'none'}.`,
    '',
    '| Figure | Value | Required |',
    '|---|---|---|',
    `| SIGKILL runs | ${kills.length} | ≥ 50 |`,
    `| Delegations in them | ${sum('delegations')} | |`,
    `| Lost delegations | ${zero(sum('lost'))} | 0 |`,
    `| Duplicate remote tasks | ${zero(sum('duplicates'))} | 0 |`,
    `| Wrong outcomes (not ACCEPTED) | ${zero(sum('wrongOutcomes'))} | 0 |`,
    `| Slowest run (kill to all settled, with worker restart) | ${Math.max(0, ...kills.map((k) => k.tookMs))} ms | |`,
    `| Server stopped and restarted on its SQLite file mid-run | ${restart.restarts} time(s), ${restart.delegations} delegations | |`,
    `| … lost / duplicates / wrong outcomes | ${zero(restart.lost)} / ${zero(restart.duplicates)} / ${zero(restart.wrongOutcomes)} | 0 / 0 / 0 |`,
    '',
    ...wireLines,
    '## Fuzzing every boundary',
    '',
    "fast-check samples (seed 20261202); each case must be accepted only when an independent check finds it valid, or refused with the boundary's typed error. A crash is any other exception. CLI arguments are fuzzed through the value parsers behind the flags (`--text`/`--data-file` parts, durations); whole command lines are exercised by the CLI integration tests, not fuzzed.",
    '',
    '| Boundary | Cases | Accepted | Refused | Crashes | False successes |',
    '|---|---|---|---|---|---|',
    ...fuzz.map((f) => `| ${f.boundary} | ${f.cases} | ${f.accepted} | ${f.refused} | ${zero(f.crashes)} | ${zero(f.falseSuccesses)} |`),
    '',
    '## Refusal matrices',
    '',
    '| Matrix | Cases | Refused | Let through |',
    '|---|---|---|---|',
    ...matrices.map((m) => `| ${m.matrix} | ${m.cases} | ${m.refused} | ${m.let_through.length ? m.let_through.join(', ') : 'none ✅'} |`),
    '',
    "SSRF: literal private, loopback, CGN, link-local, metadata, multicast and reserved addresses, IPv6 (ULA, link-local, mapped, translated, the deprecated compatible form `[::127.0.0.1]`, NAT64, 6to4, Teredo: IPv4 carried in IPv6 judged as that address) and numeric spellings (`2130706433`, `0x7f000001`, `0177.0.0.1`); names that resolve inside (one of several addresses is enough); redirects to metadata and link-local addresses; a name that answers a public address, then loopback (DNS rebinding: the inside server is never reached); a download redirected from a listed host to an unlisted one. Forged push: missing, empty, forged, truncated or extended tokens, another task's, delegation's or secret's token, a body naming another task, non-JSON, no task, a 2 MiB body, a replay, and a flood of 40 genuine pushes (429 past the delegation's allowance). Cross-tenant: show, result, answer, authorize, review and cancel of a waiting delegation, show, follow-up and cancel of a running graph and its node, each refused in exactly the words a missing id gets, an answer Signal (recorded as refused), and a start that names the other tenant's remote task or context at the agent they share. Credentials: an authorize naming worker variables (by Update, client and Signal), a credential of another tenant and an unknown one, each with nothing sent to the agent; then a credential the agent echoes in its status and artifact is in history neither plainly nor base64. Id space: another tenant starting a delegation or graph with the ids a tenant uses (chosen, whole, or in its tenant's prefix), a served task's id (unkeyed or keyed), its push workflow, generated ids: each refused or started in the stranger's own space, never told the id exists. Hostile agent: a task id of 4,136 bytes, a 3,000-character contextId, over-long artifact and message ids, artifact names and media types (each the agent's protocol error, ERROR, never a terminated workflow), data nested 20,000 levels (ERROR after one send), a 2-byte part with 1.5 MiB of metadata (stored by reference, no event over 256 KiB), the agent's own token echoed 80 levels deep and inside an artifact stored by reference (redacted in the record, history and store). Hostile caller (against `baton ui`): an unauthenticated 30 MB codec body (401 before it is read), an authenticated one over the limit (413), bodies nested 5,000 levels on the API, A2A and MCP, a 3,000-character contextId on SendMessage and ListTasks, made-up page tokens, a 10,000-node graph, another's context, 12 MCP sessions and 22 streams of one caller, 600 token guesses from one address and 40 path-token guesses at the codec server: each refused with a 4xx (or its JSON-RPC error), never a 5xx.",
    '',
    '## Reading the figures',
    '',
    '- A killed worker is noticed by timeouts: 10 s heartbeat timeout for a delegation being observed,',
    '  15 s start-to-close for one being sent. So a run takes about 13 to 15 s from kill to all settled; the',
    '  slowest runs also met 5xx bursts, whose retries back off exponentially (1 s, 2 s, 4 s, …).',
    '- Duplicate remote tasks are counted at the agent: more than one task for one first-turn messageId.',
    '  They stay at 0 because a retried send first looks for its turn (ListTasks); a 0.3 agent cannot be',
    '  asked, and there a lost response can still create a second task (the delegation notes it).',
    "- The fault agents and Toxiproxy run on loopback (a link that goes down is the proxy's); partitions between hosts, clock skew and a lost Temporal",
    '  database are not part of this campaign.',
    '',
  ];
  // The cluster's section is measured by its own run (--cluster): kept as it was.
  const kept = sectionOf(readFileSync(values.out, 'utf8'), CLUSTER_HEADING);
  const doc = lines.join('\n');
  writeFileSync(values.out, kept ? spliceSection(doc, CLUSTER_HEADING, kept) : doc);
  say(`wrote ${values.out}`);
  const bad =
    sum('lost') +
    sum('duplicates') +
    sum('wrongOutcomes') +
    restart.lost +
    restart.duplicates +
    restart.wrongOutcomes +
    fuzz.reduce((n, f) => n + f.crashes + f.falseSuccesses, 0) +
    matrices.reduce((n, m) => n + m.let_through.length, 0);
  return bad === 0 ? 0 : 1;
}

void main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`chaos campaign failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
