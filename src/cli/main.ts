#!/usr/bin/env node
/**
 * The `baton` command.
 */
import { Command, InvalidArgumentError } from 'commander';
import { DelegationNotFoundError, InvalidRequestError, RequestRefusedError } from '../client/baton-client';
import { ConfigError } from '../config/load';
import { TemporalUnavailableError } from '../runtime/temporal-server';
import { agentsCommand } from './commands/agents';
import { configCheckCommand } from './commands/config-check';
import { delegateCommand } from './commands/delegate';
import { demoCommand, InterruptedError } from './commands/demo';
import { devCommand } from './commands/dev';
import { serveAgentsCommand } from './commands/serve-agents';
import { listCommand } from './commands/list';
import { showCommand } from './commands/show';
import { answerCommand, authorizeCommand, cancelCommand, reviewCommand } from './commands/steer';
import { watchCommand } from './commands/watch';
import { workerCommand } from './commands/worker';
import { UsageError } from './usage-error';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('a port number from 1 to 65535');
  return n;
}

/** A port to listen on; 0 lets the system pick a free one (the ready line prints it). */
function listenPort(value: string): number {
  return value === '0' ? 0 : port(value);
}

function run(action: () => Promise<number>): Promise<void> {
  return action().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      const expected = err instanceof UsageError || err instanceof ConfigError || err instanceof InvalidRequestError || err instanceof DelegationNotFoundError || err instanceof RequestRefusedError || err instanceof TemporalUnavailableError || err instanceof InterruptedError;
      process.stderr.write(`baton: ${expected ? (err as Error).message : ((err as Error)?.stack ?? String(err))}\n`);
      process.exitCode = err instanceof UsageError || err instanceof InvalidRequestError ? 2 : 1;
      // A client call may still be retrying after an interruption; nothing is left to finish.
      if (err instanceof InterruptedError) process.exit(130);
    },
  );
}

const program = new Command('baton')
  .description('Durable delegation to remote A2A agents, on Temporal.')
  .option('-c, --config <file>', 'config file (default: $BATON_CONFIG or ./baton.config.yaml)')
  .showHelpAfterError();

const globals = (): { config?: string } => program.opts<{ config?: string }>();

program
  .command('demo')
  .description('run one delegation end to end on a private stack, print its outcome, and exit')
  .option('--json', 'print the delegation record as JSON')
  .action((o: { json?: boolean }) => run(() => demoCommand({ ...o, ...globals() })));

program
  .command('dev')
  .description('run Temporal (persisted), a worker and the demo agents until Ctrl-C')
  .option('--port <port>', 'Temporal front-end port', port, 7233)
  .option('--ui-port <port>', 'Temporal Web UI port', port, 8233)
  .option('--agents-port <port>', 'first port for the demo agents (one port each, counting up)', port, 41241)
  .option('--db <file>', 'SQLite file of the dev server (default .baton/dev/temporal.sqlite)')
  .action((o: { port: number; uiPort: number; agentsPort: number; db?: string }) => run(() => devCommand({ ...o, ...globals() })));

program
  .command('worker')
  .description('run a worker against an existing Temporal server')
  .action(() => run(() => workerCommand(globals())));

program
  .command('serve-agents')
  .description('serve only the demo agents (supplier-qa), for a worker elsewhere')
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--port <port>', 'port (0: any free port)', listenPort, 41241)
  .option('--public-url <url>', 'URL written into the card (default http://host:port)')
  .action((o: { host: string; port: number; publicUrl?: string }) => run(() => serveAgentsCommand(o)));

program
  .command('delegate')
  .description('hand work to an agent')
  .requiredOption('--agent <name>', 'agent name from the registry')
  .option('--text <text>', 'the request as text')
  .option('--data-file <file>', 'a JSON file sent as a data part')
  .option('--policy <name>', "acceptance policy (default: the agent's)")
  .option('--id <id>', 'delegation id (default: dlg-<uuid>)')
  .option('--deadline <duration>', "end it (TIMED_OUT, remote cancel requested) after this long, e.g. 30m (default: the agent's)")
  .option('--context <contextId>', 'continue a remote conversation (a contextId the agent gave)')
  .option('--ref <taskId...>', 'remote tasks this work refers to (referenceTaskIds)')
  .option('--wait', 'wait for the outcome and print the record')
  .option('--json', 'print JSON')
  .action((o: { agent: string; text?: string; dataFile?: string; policy?: string; id?: string; deadline?: string; context?: string; ref?: string[]; wait?: boolean; json?: boolean }) =>
    run(() => delegateCommand({ ...o, ...globals() })),
  );

program
  .command('show')
  .description("print a delegation's record")
  .argument('<id>', 'delegation id')
  .option('--json', 'print JSON')
  .action((id: string, o: { json?: boolean }) => run(() => showCommand(id, { ...o, ...globals() })));

program
  .command('answer')
  .description("answer a delegation's pending input request (sent to the agent as a new turn)")
  .argument('<id>', 'delegation id')
  .option('--request <requestId>', 'the pending request id (default: the one pending now)')
  .option('--text <text>', 'the answer as text')
  .option('--data-file <file>', 'a JSON file sent as a data part')
  .option('--json', 'print JSON')
  .action((id: string, o: { request?: string; text?: string; dataFile?: string; json?: boolean }) => run(() => answerCommand(id, { ...o, ...globals() })));

program
  .command('authorize')
  .description("answer a pending authentication request with a credential the worker reads from its environment")
  .argument('<id>', 'delegation id')
  .requiredOption('--from-env <VAR>', 'name of the environment variable on the worker (the value never enters history)')
  .option('--request <requestId>', 'the pending request id (default: the one pending now)')
  .option('--json', 'print JSON')
  .action((id: string, o: { request?: string; fromEnv: string; json?: boolean }) => run(() => authorizeCommand(id, { ...o, ...globals() })));

program
  .command('review')
  .description('accept or reject a result that waits for review')
  .argument('<id>', 'delegation id')
  .option('--accept', 'accept the result')
  .option('--reject', 'reject the result')
  .option('--reason <text>', 'why (kept in the outcome)')
  .option('--request <requestId>', 'the pending request id (default: the one pending now)')
  .option('--json', 'print JSON')
  .action((id: string, o: { accept?: boolean; reject?: boolean; reason?: string; request?: string; json?: boolean }) => run(() => reviewCommand(id, { ...o, ...globals() })));

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
  .option('--status <status>', 'STARTING, REMOTE_ACTIVE, WAITING_INPUT, WAITING_AUTH, CANCELLING or SETTLED')
  .option('--agent <name>', 'agent name')
  .option('--outcome <outcome>', 'ACCEPTED, REJECTED, REMOTE_FAILED, REMOTE_REJECTED, CANCELED, TIMED_OUT or ERROR')
  .option('--limit <n>', 'at most this many', (v) => Number(v), 50)
  .option('--json', 'print JSON')
  .action((o: { status?: string; agent?: string; outcome?: string; limit: number; json?: boolean }) => run(() => listCommand({ ...o, ...globals() })));

program
  .command('watch')
  .description('follow a delegation until it settles: a live status line with elapsed time')
  .argument('<id>', 'delegation id')
  .option('--json', 'print the final record as JSON')
  .action((id: string, o: { json?: boolean }) => run(() => watchCommand(id, { ...o, ...globals() })));

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

void program.parseAsync(process.argv);
