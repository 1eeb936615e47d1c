/**
 * `/agui`: Baton's work as AG-UI runs (docs/agui.md), for the API's callers and with its checks. A
 * POST takes a `RunAgentInput` and answers with the run's events over SSE:
 *
 * - `/agui/agents/{agent}`: the thread is one delegation to the agent (started by the first run, from
 *   its last user message);
 * - `/agui/graphs`: the thread is one task graph (started from `forwardedProps.baton.graph`);
 * - `/agui/served/{service}`: the thread is one task of a service Baton serves.
 *
 * A run first applies what its input carries (resume entries: answers; `forwardedProps.baton.cancel`),
 * then follows the work from its durable record until it ends or waits for someone (an interrupt).
 * Everything wrong with a request is said before the stream opens (HTTP 4xx, nothing changed).
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { readThroughOutage } from '../../client/read-through-outage';
import type { AgentEntry } from '../../config/schema';
import { RateLimitedError } from '../../limits/caller-budget';
import { requirePermission } from '../../limits/caller-gate';
import type { Principal } from '../../auth/permissions';
import type { ServedAgent } from '../../serve/served-agent';
import { AguiRun, type AguiEvent } from '../../shared/agui-mapping';
import { BatonError } from '../../shared/baton-error';
import { MAX_NESTING, nestsDeeperThan } from '../../shared/nesting';
import { batonPropsOf, requestOf, RunInputSchema, type RunInput } from '../../agui/run-input';
import { DelegationThread, GraphThread, resumeUpdateId, ServedThread, type AguiThread } from '../../agui/threads';
import { corsFor } from '../cors';
import { apiErrorOf, handle, openEventStream, parse, type RouteKit } from './route-kit';

/** A quiet run says so this often (an SSE comment), so proxies keep it open. */
const KEEPALIVE_MS = 15_000;

export interface AguiOptions {
  /** The agents a thread may delegate to (the config's registry): another name is not found, nothing starts. */
  agents: Record<string, AgentEntry>;
  /** The services Baton serves, by name. Default: none. */
  served?: ReadonlyMap<string, ServedAgent>;
  /** Browser origins allowed to call (`api.agui.corsOrigins`). Default none. */
  corsOrigins?: string[];
}

/** A thread of one of the three kinds, and how its first run starts it. */
interface Opened {
  thread: AguiThread;
  start(input: RunInput): Promise<void>;
}

/** Mounts `/agui` behind `authenticate`. */
export function mountAgui(app: express.Express, authenticate: express.RequestHandler, kit: RouteKit, o: AguiOptions): void {
  const router = express.Router();
  router.use(corsFor(o.corsOrigins ?? [], { methods: 'POST, OPTIONS', headers: 'Authorization, Content-Type, Accept' }));
  router.use(authenticate);
  router.use(express.json({ limit: '1mb' }));
  router.use((req, _res, next) =>
    next(nestsDeeperThan(req.body) ? new BatonError('InvalidRequest', `the body nests deeper than ${MAX_NESTING} levels`) : undefined),
  );

  const request = (input: RunInput): string => {
    const asked = requestOf(input);
    if (!asked)
      throw new BatonError('InvalidRequest', `thread ${input.threadId} has no work yet: send a user message with text to start it`);
    return asked.text;
  };

  router.post(
    '/agents/:agent',
    handle(async (req, res) => {
      const agent = String(req.params.agent ?? '');
      if (!Object.hasOwn(o.agents, agent))
        throw new BatonError('NotFound', `no agent ${agent.slice(0, 100)} is configured: see the agents Baton knows with baton agents`);
      const { baton, caller } = kit.as(req);
      await runThread(req, res, kit, (input) => {
        const thread = new DelegationThread(baton, agent, input.threadId);
        return {
          thread,
          start: async (i) => {
            const text = request(i);
            await kit.budget.startWork(caller, 1);
            await thread.start(text);
            kit.log.info({ delegationId: thread.id, agent, caller }, 'delegation started over AG-UI');
          },
        };
      });
    }),
  );

  router.post(
    '/graphs',
    handle(async (req, res) => {
      const { baton, graphs, caller } = kit.as(req);
      await runThread(req, res, kit, (input) => {
        const thread = new GraphThread(graphs, baton, input.threadId, (reads) => kit.budget.fanOut(caller, reads));
        return {
          thread,
          start: async (i) => {
            const spec = batonPropsOf(i)?.graph;
            if (spec === undefined)
              throw new BatonError('InvalidRequest', `thread ${i.threadId} has no graph yet: give its spec as forwardedProps.baton.graph`);
            await thread.start(spec, (nodes) => kit.budget.startWork(caller, nodes, `a graph of ${nodes} nodes`));
            kit.log.info({ graphId: thread.id, caller }, 'graph started over AG-UI');
          },
        };
      });
    }),
  );

  router.post(
    '/served/:service',
    handle(async (req, res) => {
      const name = String(req.params.service ?? '');
      const served = o.served?.get(name);
      if (!served) throw new BatonError('NotFound', `no service ${name.slice(0, 100)} is served here (serve.services)`);
      const { caller } = kit.as(req);
      await runThread(req, res, kit, (input) => {
        const thread = new ServedThread(served, caller, input.threadId);
        return {
          thread,
          start: async (i) => {
            const text = request(i);
            await kit.budget.startWork(caller, served.workCost);
            await thread.start(text);
            kit.log.info({ taskId: thread.id, service: name, caller }, 'served task started over AG-UI');
          },
        };
      });
    }),
  );

  router.use((req, _res, next) => next(new BatonError('NotFound', `no AG-UI route ${req.method} ${req.path}`)));
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = apiErrorOf(err);
    if (e.kind === 'Internal') kit.log.error({ err, path: req.path }, 'AG-UI request failed');
    if (res.headersSent) return void res.end();
    if (e instanceof RateLimitedError) res.setHeader('Retry-After', String(e.retryAfterSeconds));
    res.status(e.httpStatus).json({ error: { type: e.kind, message: e.message } });
  });
  app.use('/agui', router);
}

/** Applies what the input carries, then streams the run. */
async function runThread(req: Request, res: Response, kit: RouteKit, open: (input: RunInput) => Opened): Promise<void> {
  const input = parse(RunInputSchema, req.body, 'RunAgentInput');
  const { principal, caller } = kit.as(req);
  requirePermission(principal, 'read');
  const { thread, start } = open(input);
  // The stream's place first: a caller past its streams changes nothing.
  const lease = await kit.budget.openStream(caller);
  let answered: Set<string>;
  try {
    answered = await applyInput(input, principal, thread, start);
  } catch (err) {
    await lease.release();
    throw err;
  }
  res.once('close', () => void lease.release());
  await stream(
    req,
    res,
    kit,
    thread,
    new AguiRun(
      { threadId: input.threadId, runId: input.runId },
      input.messages.map((m) => m.id),
      answered,
    ),
  );
}

/** What the input asks before the run follows the work: its answers, a cancel, or the work's start. The interrupts answered. */
async function applyInput(input: RunInput, principal: Principal, thread: AguiThread, start: Opened['start']): Promise<Set<string>> {
  const answered = new Set<string>();
  for (const entry of input.resume ?? []) {
    requirePermission(principal, entry.status === 'cancelled' ? 'cancel' : 'answer');
    await thread.resume(entry, resumeUpdateId(input.threadId, input.runId, entry.interruptId));
    answered.add(entry.interruptId);
  }
  const cancel = batonPropsOf(input)?.cancel;
  if (cancel) {
    requirePermission(principal, 'cancel');
    if (!(await thread.exists())) throw new BatonError('NotFound', `thread ${input.threadId} has no work to cancel`);
    await thread.cancel(cancel === true ? 'cancelled from the front end' : (cancel.reason ?? 'cancelled from the front end'));
  } else if (!answered.size && !(await thread.exists())) {
    requirePermission(principal, 'delegate');
    await start(input);
  }
  return answered;
}

/** The run's events, from the work's record, until the run ends or the caller goes away. */
async function stream(req: Request, res: Response, kit: RouteKit, thread: AguiThread, run: AguiRun): Promise<void> {
  openEventStream(res);
  const gone = new AbortController();
  req.on('close', () => gone.abort());
  res.on('close', () => gone.abort());
  let wrote = Date.now();
  const send = (events: AguiEvent[]): void => {
    for (const event of events) res.write(`data: ${JSON.stringify({ ...event, timestamp: Date.now() })}\n\n`);
    if (events.length) wrote = Date.now();
  };
  send([run.started()]);
  while (!gone.signal.aborted && !run.ended) {
    try {
      // Temporal away for a while (a restart, a failover) is ridden out; the run shows no change meanwhile.
      const view = await readThroughOutage(() => thread.view(), {
        rideOut: kit.rideOut,
        what: `thread ${thread.id}`,
        stopped: () => gone.signal.aborted,
      });
      send(run.next(view));
    } catch (err) {
      if (gone.signal.aborted) break;
      const e = apiErrorOf(err);
      if (e.kind === 'Internal') kit.log.error({ err, thread: thread.id }, 'AG-UI run failed');
      send(run.failed(e.kind, e.message));
      break;
    }
    if (run.ended) break;
    await thread.changed(gone.signal, kit.pollMs);
    if (Date.now() - wrote >= KEEPALIVE_MS) {
      res.write(': still waiting\n\n');
      wrote = Date.now();
    }
  }
  res.end();
}
