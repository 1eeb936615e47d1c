/**
 * The `baton` command line: every command, its options and its help (started by main.ts).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { asBatonError } from '../errors/as-baton-error';
import { ERROR_KINDS } from '../shared/baton-error';
import { BATON_VERSION } from '../shared/baton-version';
import { OLDEST_SUPPORTED } from '../shared/support-window';
import { upgradeCheckCommand } from './commands/upgrade-check';
import { DELEGATION_STATUSES, OUTCOMES } from '../shared/delegation-types';
import { artifactsGcCommand } from './commands/artifacts-gc';
import { artifactsGetCommand } from './commands/artifacts-get';
import { agentsCommand } from './commands/agents';
import { configCheckCommand } from './commands/config-check';
import { delegateCommand, type DelegateOptions } from './commands/delegate';
import { demoCommand } from './commands/demo';
import { graphDemoCommand } from './commands/demo-graphs';
import { devCommand } from './commands/dev';
import { serveAgentsCommand } from './commands/serve-agents';
import { serveCommand } from './commands/serve';
import { setupCommand } from './commands/setup';
import { listCommand } from './commands/list';
import { showCommand } from './commands/show';
import { auditCommand } from './commands/audit';
import { answerCommand, authorizeCommand, cancelCommand, reviewCommand } from './commands/steer';
import { watchCommand } from './commands/watch';
import { graphAddCommand, graphCancelCommand, graphListCommand, graphRunCommand, graphShowCommand } from './commands/graph';
import { workerCommand } from './commands/worker';
import { webhookCommand } from './commands/webhook';
import { uiCommand } from './commands/ui';
import type * as McpCommandModule from './commands/mcp';
import { DEFAULT_MAX_HEAP_MIB, MAX_HEAP_ENV, MIN_MAX_HEAP_MIB, parseMaxHeap } from './heap-cap';
import { UsageError } from './usage-error';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('a port number from 1 to 65535');
  return n;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of 1 or more');
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('a whole number of 0 or more');
  return n;
}

/** `--max-heap`: main.ts has already acted on it (or a heap flag given to Node); checked here for the error. */
function maxHeap(value: string): number {
  const n = parseMaxHeap(value);
  if (n === undefined) throw new InvalidArgumentError(`a whole number of MiB, ${MIN_MAX_HEAP_MIB} or more (0: Node's default)`);
  return n;
}

/** A port to listen on; 0 lets the system pick a free one (the ready line prints it). */
function listenPort(value: string): number {
  return value === '0' ? 0 : port(value);
}

/**
 * Runs a command and ends the process with its exit code. An expected failure (a BatonError, or one
 * the mapping knows) prints one line that says what happened and what to do; anything else is a bug,
 * printed with its stack trace and a line that says so.
 */
function run(action: () => Promise<number>): Promise<void> {
  return action().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      const known = asBatonError(err);
      process.stderr.write(
        known
          ? `baton: ${known.message}\n`
          : `baton: internal error (a bug in Baton; please report it with this trace):\n${(err as Error)?.stack ?? String(err)}\n`,
      );
      process.exitCode = known?.exitCode ?? ERROR_KINDS.Internal.exitCode;
      // A client call may still be retrying after an interruption; nothing is left to finish.
      if (known?.kind === 'Interrupted') process.exit(known.exitCode);
      // 👉 A command that failed after starting a worker has stopped it, but the Temporal Runtime's
      // native threads can keep the process alive: give output a moment to drain, then end it.
      setTimeout(() => process.exit(), 2_000).unref();
    },
  );
}

/** A value from `values` (any case), for options whose values are a type's: `--help` lists them from it. */
function oneOf(values: readonly string[]): (value: string) => string {
  return (value) => {
    const upper = value.toUpperCase();
    if (!values.includes(upper)) throw new InvalidArgumentError(`use one of ${values.join(', ')}`);
    return upper;
  };
}

const program = new Command('baton')
  .description('Durable delegation to remote A2A agents, on Temporal.')
  .version(BATON_VERSION, '-V, --version', "Baton's version")
  .option('-c, --config <file>', 'config file (default: $BATON_CONFIG or ./baton.config.yaml)')
  // A mistake in the command line is a usage error: one line, exit code 2, like every other one.
  .configureOutput({ outputError: (text, write) => write(`baton: ${text.replace(/^error: /, '').trim()} (see --help)\n`) })
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : ERROR_KINDS.InvalidRequest.exitCode));

const globals = (): { config?: string } => program.opts<{ config?: string }>();

program
  .command('demo')
  .description('run a scenario end to end on a private stack, print its outcome, and exit')
  .argument(
    '[scenario]',
    'inspection (one delegation answered by a person), trip (a task graph) or image (a graph with a follow-up)',
    'inspection',
  )
  .option('--json', 'print the record as JSON')
  .action((scenario: string, o: { json?: boolean }) => {
    if (scenario === 'trip' || scenario === 'image') return run(() => graphDemoCommand(scenario, { ...o, ...globals() }));
    if (scenario !== 'inspection')
      return run(() => Promise.reject(new UsageError(`unknown demo scenario ${scenario}: use inspection, trip or image`)));
    return run(() => demoCommand({ ...o, ...globals() }));
  });

program
  .command('dev')
  .description('run Temporal (persisted), a worker and the demo agents until Ctrl-C')
  .option('--port <port>', 'Temporal front-end port (0: a free one)', listenPort, 7233)
  .option('--ui-port <port>', 'Temporal Web UI port (0: a free one)', listenPort, 8233)
  .option('--agents-port <port>', 'first port for the demo agents, one each counting up (0: free ones)', listenPort, 41241)
  .option('--webhook-port <port>', 'port of the push webhook', listenPort, 41240)
  .option('--app-port <port>', 'port of the web app and HTTP API (default: api.listen.port, 41230)', listenPort)
  .option('--db <file>', 'SQLite file of the dev server (default .baton/dev/temporal.sqlite)')
  .action((o: { port: number; uiPort: number; agentsPort: number; webhookPort: number; appPort?: number; db?: string }) =>
    run(() => devCommand({ ...o, ...globals() })),
  );

program
  .command('webhook')
  .description('receive push notifications from agents and pass them to their delegations (needs push in the config)')
  .action(() => run(() => webhookCommand({ ...globals() })));

program
  .command('ui')
  .description('serve the web app (inbox, delegations, graphs) and the HTTP API for an existing server')
  .option('--host <host>', 'interface to listen on (default: api.listen.host, 127.0.0.1)')
  .option('--port <port>', 'port (0: any free port; default: api.listen.port, 41230)', listenPort)
  .action((o: { host?: string; port?: number }) => run(() => uiCommand({ ...o, ...globals() })));

program
  .command('serve')
  .description('serve the A2A agents Baton offers (serve.services) alone, for an existing server')
  .option('--host <host>', 'interface to listen on (default: serve.listen.host, 127.0.0.1)')
  .option('--port <port>', 'port (0: any free port; default: serve.listen.port, 41250)', listenPort)
  .action((o: { host?: string; port?: number }) => run(() => serveCommand({ ...o, ...globals() })));

program
  .command('worker')
  .description('run a worker against an existing Temporal server')
  .option('--build-id <id>', "join the config's worker deployment (default name baton) as this build: Worker Versioning")
  .addOption(
    new Option('--max-heap <MiB>', 'cap each V8 heap of the worker (activities, workflows) at this size; 0 leaves Node its own default')
      .env(MAX_HEAP_ENV)
      .default(DEFAULT_MAX_HEAP_MIB)
      .argParser(maxHeap),
  )
  .action((o: { buildId?: string }) => run(() => workerCommand({ ...globals(), buildId: o.buildId })));

program
  .command('serve-agents')
  .description('serve the demo agents (supplier-qa; --all for every one) for a worker elsewhere')
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--port <port>', 'port (0: any free port)', listenPort, 41241)
  .option('--public-url <url>', 'URL written into the card (default http://host:port)')
  .option('--all', 'every demo agent baton dev serves, on --port and the ports after it')
  .option('--public-host <host>', 'with --all: the host name written into each card (http://<host>:<port>)')
  .action((o: { host: string; port: number; publicUrl?: string; publicHost?: string; all?: boolean }) => run(() => serveAgentsCommand(o)));

program
  .command('delegate')
  .description('hand work to an agent')
  .requiredOption('--agent <name>', 'agent name from the registry')
  .option('--text <text>', 'the request as text')
  .option('--data-file <file>', 'a JSON file sent as a data part')
  .option('--policy <name>', "acceptance policy (default: the agent's)")
  .option('--id <id>', 'delegation id (default: dlg-<uuid>)')
  .option('--deadline <duration>', "end it (TIMED_OUT, remote cancel requested) after this long, e.g. 30m (default: the agent's)")
  .option(
    '--max-wait <duration>',
    "stop reading the task at Baton's own pace (push backstop, sparse reads) after this long, e.g. 30d (default: the agent's, 90d)",
  )
  .option('--context <contextId>', 'continue a remote conversation (a contextId the agent gave)')
  .option('--ref <taskId...>', 'remote tasks this work refers to (referenceTaskIds)')
  .option('--label <label>', "label every part with this data label (dataUse.labels), checked against the agent's clearance")
  .option('--terms <json>', 'data-use terms for every part, as JSON (purpose, retention, forwarding, agents, actions)')
  .option('--wait', 'wait for the outcome and print the record')
  .option('--json', 'print JSON')
  .action((o: Omit<DelegateOptions, 'config'>) => run(() => delegateCommand({ ...o, ...globals() })));

program
  .command('show')
  .description("print a delegation's record")
  .argument('<id>', 'delegation id')
  .option('--json', 'print JSON')
  .action((id: string, o: { json?: boolean }) => run(() => showCommand(id, { ...o, ...globals() })));

program
  .command('audit')
  .description('who sent what to whom in a delegation (its three principals), with digests, from its history')
  .argument('<id>', 'delegation id')
  .option('--json', 'print JSON')
  .action((id: string, o: { json?: boolean }) => run(() => auditCommand(id, { ...o, ...globals() })));

program
  .command('answer')
  .description("answer a delegation's pending input request (sent to the agent as a new turn)")
  .argument('<id>', 'delegation id')
  .option('--request <requestId>', 'the pending request id (default: the one pending now)')
  .option('--text <text>', 'the answer as text')
  .option('--data-file <file>', 'a JSON file sent as a data part')
  .option('--json', 'print JSON')
  .action((id: string, o: { request?: string; text?: string; dataFile?: string; json?: boolean }) =>
    run(() => answerCommand(id, { ...o, ...globals() })),
  );

program
  .command('authorize')
  .description("answer a pending authentication request with one of the credentials the agent's entry allows")
  .argument('<id>', 'delegation id')
  .option(
    '--credential <name>',
    "the credential's name in agents.<agent>.credentials (the worker reads its value; only the name enters history)",
  )
  .option('--request <requestId>', 'the pending request id (default: the one pending now)')
  .option('--json', 'print JSON')
  .action((id: string, o: { request?: string; credential?: string; json?: boolean }) =>
    run(() => authorizeCommand(id, { ...o, ...globals() })),
  );

program
  .command('review')
  .description('accept or reject a result that waits for review')
  .argument('<id>', 'delegation id')
  .option('--accept', 'accept the result')
  .option('--reject', 'reject the result')
  .option('--reason <text>', 'why (kept in the outcome)')
  .option('--request <requestId>', 'the pending request id (default: the one pending now)')
  .option('--json', 'print JSON')
  .action((id: string, o: { accept?: boolean; reject?: boolean; reason?: string; request?: string; json?: boolean }) =>
    run(() => reviewCommand(id, { ...o, ...globals() })),
  );

program
  .command('cancel')
  .description('cancel a delegation and its remote task; prints the settled record')
  .argument('<id>', 'delegation id')
  .option('--reason <text>', 'why (kept in the record)')
  .option('--json', 'print JSON')
  .action((id: string, o: { reason?: string; json?: boolean }) => run(() => cancelCommand(id, { ...o, ...globals() })));

program
  .command('ls')
  .description("list the caller's delegations, newest first")
  .option('--status <status>', DELEGATION_STATUSES.join(', '), oneOf(DELEGATION_STATUSES))
  .option('--agent <name>', 'agent name')
  .option('--outcome <outcome>', OUTCOMES.join(', '), oneOf(OUTCOMES))
  .option('--baton-version <version>', 'only those started by this Baton version (see baton --version); none: before 0.2.0')
  .option('--limit <n>', 'at most this many', (v) => Number(v), 50)
  .option('--json', 'print JSON')
  .action((o: { status?: string; agent?: string; outcome?: string; batonVersion?: string; limit: number; json?: boolean }) =>
    run(() => listCommand({ ...o, ...globals() })),
  );

program
  .command('watch')
  .description('follow a delegation until it settles: a live status line with elapsed time')
  .argument('<id>', 'delegation id')
  .option('--json', 'print the final record as JSON')
  .action((id: string, o: { json?: boolean }) => run(() => watchCommand(id, { ...o, ...globals() })));

const graph = program.command('graph').description('task graphs: delegations with dependencies, run in parallel where they can');

graph
  .command('run')
  .description('start a graph from a spec file (YAML or JSON) and follow it until it settles')
  .argument('<spec>', 'graph spec file')
  .option('--id <id>', "graph id (default: the spec's id, else graph-<uuid>)")
  .option('--detach', 'print the id and return once started')
  .option('--json', 'print JSON')
  .action((spec: string, o: { id?: string; detach?: boolean; json?: boolean }) => run(() => graphRunCommand(spec, { ...o, ...globals() })));

graph
  .command('ls')
  .description("list the caller's graphs, newest first")
  .option('--status <status>', 'running or settled', oneOf(['RUNNING', 'SETTLED']))
  .option('--limit <n>', 'at most this many', positiveInt, 50)
  .option('--json', 'print JSON')
  .action((o: { status?: string; limit: number; json?: boolean }) =>
    run(() => graphListCommand({ ...o, status: o.status?.toLowerCase() as 'running' | 'settled' | undefined, ...globals() })),
  );

graph
  .command('show')
  .description('print a graph: a page of its nodes with their states, the contexts and the latest accepted artifacts')
  .argument('<id>', 'graph id')
  .option('--offset <n>', 'skip the first n nodes (of those --state selects)', nonNegativeInt)
  .option('--limit <n>', 'nodes per page, at most 1000 (default 100)', positiveInt)
  .option('--state <state>', 'only nodes in this state: PENDING, RUNNING, SKIPPED, SETTLED or an outcome (ACCEPTED, ...)')
  .option('--json', 'print JSON')
  .action((id: string, o: { json?: boolean; offset?: number; limit?: number; state?: string }) =>
    run(() => graphShowCommand(id, { ...o, ...globals() })),
  );

graph
  .command('add')
  .description('add a follow-up node to a running graph (a refinement is a new task that references the old one)')
  .argument('<id>', 'graph id')
  .requiredOption('--node <nodeId>', 'id of the new node')
  .requiredOption('--agent <name>', 'agent name from the registry')
  .requiredOption('--text <text>', 'the request as text')
  .option('--refines <nodeId>', 'the node whose result this refines (same agent, same context)')
  .option('--depends-on <nodeId...>', 'nodes that must be ACCEPTED first')
  .option('--policy <name>', "acceptance policy (default: the agent's)")
  .option('--json', 'print JSON')
  .action(
    (
      id: string,
      o: { node: string; agent: string; text: string; refines?: string; dependsOn?: string[]; policy?: string; json?: boolean },
    ) => run(() => graphAddCommand(id, { ...o, ...globals() })),
  );

graph
  .command('cancel')
  .description("cancel a graph's running nodes (and their remote tasks), skip the rest")
  .argument('<id>', 'graph id')
  .option('--reason <text>', 'why (kept in the record)')
  .option('--json', 'print JSON')
  .action((id: string, o: { reason?: string; json?: boolean }) => run(() => graphCancelCommand(id, { ...o, ...globals() })));

program
  .command('setup')
  .description('make the configured namespace ready for Baton: create it if missing, register its search attributes (safe to run again)')
  .option('--retention-days <n>', 'retention of closed workflows, for a namespace it creates', positiveInt, 3)
  .option('--nexus', "also create (or check) the Nexus endpoint of the config's nexus section, targeting this namespace and task queue")
  .option('--json', 'print JSON')
  .action((o: { json?: boolean; retentionDays: number; nexus?: boolean }) => run(() => setupCommand({ ...o, ...globals() })));

program
  .command('upgrade-check')
  .description(
    `list running delegations and graphs that a release before ${OLDEST_SUPPORTED} started: this release will not run them (exit 1 while any)`,
  )
  .option('--json', 'print JSON')
  .action((o: { json?: boolean }) => run(() => upgradeCheckCommand({ ...o, ...globals() })));

const artifacts = program.command('artifacts').description('the artifact store');
artifacts
  .command('gc')
  .description('remove stored artifact bytes no readable delegation or graph names (a dry run unless --apply)')
  .option('--apply', 'remove them (default: only report)')
  .option('--json', 'print JSON')
  .action((o: { apply?: boolean; json?: boolean }) => run(() => artifactsGcCommand({ ...o, ...globals() })));
artifacts
  .command('get')
  .description("write an artifact stored by reference (its record's ref, sha256:…) to a file or stdout, checked against its digest")
  .argument('<ref>', 'the artifact reference, sha256:<hex>')
  .option('-o, --output <file>', 'write to this file (default: stdout)')
  .action((ref: string, o: { output?: string }) => run(() => artifactsGetCommand(ref, { ...o, ...globals() })));

program
  .command('mcp')
  .description("serve Baton to an MCP host over stdio, as the config's caller (baton ui serves it over HTTP at /mcp)")
  .action(() =>
    run(() => {
      // Loaded only for this command: the MCP SDK takes about 0.3 s to load, which no other command should pay.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { mcpCommand } = require('./commands/mcp') as typeof McpCommandModule;
      return mcpCommand({ ...globals() });
    }),
  );

program
  .command('agents')
  .description('list the agent registry with the state of each card (fetched under its trust policy)')
  .option('--json', 'print JSON')
  .action((o: { json?: boolean }) => run(() => agentsCommand({ ...o, ...globals() })));

program
  .command('config')
  .description('work with the config file')
  .command('check')
  .description('validate the config file; every problem names the field and the fix')
  .option('--json', 'print JSON')
  .action((o: { json?: boolean }) => run(() => configCheckCommand({ ...o, ...globals() })));

/** Runs the command `argv` names (`process.argv`'s shape). */
export function runProgram(argv: readonly string[]): void {
  void program.parseAsync(argv);
}
