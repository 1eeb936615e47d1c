/**
 * Baton's MCP tools: what a model in an MCP host may do with delegations and graphs, as the one
 * caller the server acts for. Inputs are zod schemas (the SDK refuses a malformed call before any
 * handler runs); outputs are structured, with the agent's words marked untrusted (./untrusted.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { agentStatusesOf } from '../a2a/agent-status';
import { ChosenIdSchema } from '../http/api-schemas';
import type { BatonClient } from '../client/baton-client';
import type { GraphClient } from '../client/graph-client';
import type { AgentEntry } from '../config/schema';
import { asBatonError } from '../errors/as-baton-error';
import { BatonError } from '../shared/baton-error';
import { changeKeyOf } from '../shared/delegation-result';
import { DurationSchema, identifier, OUTCOMES, DELEGATION_STATUSES, type DelegationRecord } from '../shared/delegation-types';
import { GRAPH_NODE_STATES, MAX_GRAPH_PAGE } from '../shared/graph-limits';
import type { GraphRecord } from '../shared/graph-types';
import type { Part } from '../shared/a2a-types';
import { delegationView, DelegationViewSchema } from './delegation-view';
import { graphView, GraphViewSchema } from './graph-view';
import { UNTRUSTED_NOTE, untrusted, UntrustedTextSchema } from './untrusted';
import { waitFor } from './wait-for';
import { holdingStream, type McpLimits } from './mcp-limits';

export interface ToolOptions {
  /** The caller's clients: every tool acts as that caller, and sees only its tenant's delegations. */
  baton: BatonClient;
  graphs: GraphClient;
  /** The agent registry (`agents:`): list_agents reads their cards, delegate refuses names not in it. */
  agents: Record<string, AgentEntry>;
  logger: Logger;
  /** Longest agent text in one field of a result. */
  maxAgentTextChars: number;
  /** Longest a tool may wait (`waitSeconds`). */
  maxWaitSeconds: number;
  /** Pause between reads while a tool waits, in ms. */
  watchMs: number;
  /** The caller's budget for work started and waits held. */
  limits: McpLimits;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const waitSeconds = (max: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(max)
    .optional()
    .describe(`Wait up to this many seconds (at most ${max}) for the delegation to settle or to ask something; default 0: answer at once.`);
const content = {
  text: z.string().min(1).max(100_000).optional().describe('The message as plain text.'),
  data: z.record(z.string(), z.unknown()).optional().describe('The message as a JSON object (sent as an A2A data part).'),
};
const requestId = z.string().min(1).max(300).describe('The pending request this answers (pending.requestId).');
const delegationId = z.string().min(1).max(400).describe('The delegation id.');

/** Text and data as A2A parts; at least one is required. */
function partsOf(given: { text?: string; data?: Record<string, unknown> }): Part[] {
  const parts: Part[] = [
    ...(given.text !== undefined ? [{ text: given.text, mediaType: 'text/plain' }] : []),
    ...(given.data !== undefined ? [{ data: given.data, mediaType: 'application/json' }] : []),
  ];
  if (!parts.length) throw new BatonError('InvalidRequest', 'give text or data: nothing was sent');
  return parts;
}

/** A tool's answer: one line in Baton's words, the untrusted-text rule, and the structured result as JSON. */
function answer(summary: string, structured: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: `${summary}\n${UNTRUSTED_NOTE}\n${JSON.stringify(structured)}` }],
    structuredContent: structured,
  };
}

/** A tool that failed as expected: `<kind>: <what happened and what to do>`, marked as an error for the model. */
function failed(err: unknown, logger: Logger, tool: string): CallToolResult {
  const known = asBatonError(err);
  if (!known) logger.error({ err, tool }, 'MCP tool failed');
  const e = known ?? new BatonError('Internal', 'internal error (see the server log)');
  return { isError: true, content: [{ type: 'text', text: `${e.kind}: ${e.message}` }] };
}

const settledOrAsking = (r: DelegationRecord): boolean => r.outcome !== undefined || r.pending !== null;

/** What every tool shares: the clients, the caps, failures as tool errors, progress while waiting. */
interface ToolKit {
  opts: ToolOptions;
  baton: BatonClient;
  graphs: GraphClient;
  logger: Logger;
  cap: number;
  maxWait: number;
  guard: <A>(tool: string, fn: (args: A, extra: Extra) => Promise<CallToolResult>) => (args: A, extra: Extra) => Promise<CallToolResult>;
  progress: (extra: Extra) => (r: DelegationRecord | GraphRecord, n: number) => Promise<void>;
  waitDelegation: (id: string, seconds: number, extra: Extra, done?: (r: DelegationRecord) => boolean) => Promise<DelegationRecord>;
  delegationAnswer: (r: DelegationRecord) => CallToolResult;
}

function toolKit(opts: ToolOptions): ToolKit {
  const { baton, graphs, logger, maxAgentTextChars: cap, maxWaitSeconds: maxWait } = opts;
  const guard =
    <A>(tool: string, fn: (args: A, extra: Extra) => Promise<CallToolResult>) =>
    async (args: A, extra: Extra): Promise<CallToolResult> => {
      try {
        return await fn(args, extra);
      } catch (err) {
        return failed(err, logger, tool);
      }
    };
  /** Progress notifications while waiting, when the host asked for them (a progress token). */
  const progress = (extra: Extra) => async (r: DelegationRecord | GraphRecord, n: number) => {
    const token = extra._meta?.progressToken;
    if (token === undefined) return;
    await extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: token, progress: n, message: `${r.id}: ${r.status}${r.outcome ? ` ${r.outcome.kind}` : ''}` },
    });
  };
  const waitDelegation = (id: string, seconds: number, extra: Extra, done = settledOrAsking) =>
    holdingStream(opts.limits, seconds > 0, () =>
      waitFor({
        read: () => baton.show(id),
        done,
        keyOf: changeKeyOf,
        seconds,
        everyMs: opts.watchMs,
        signal: extra.signal,
        onChange: progress(extra),
      }),
    );
  const delegationAnswer = (r: DelegationRecord): CallToolResult => {
    const view = delegationView(r, cap);
    return answer(`Delegation ${r.id} to ${r.agent.name}: ${r.status}${r.outcome ? `, ${r.outcome.kind}` : ''}. ${view.next}`, view);
  };
  return { opts, baton, graphs, logger, cap, maxWait, guard, progress, waitDelegation, delegationAnswer };
}

export function registerTools(server: McpServer, opts: ToolOptions): void {
  const kit = toolKit(opts);
  agentTools(server, kit);
  readTools(server, kit);
  steeringTools(server, kit);
  graphTools(server, kit);
}

/** The agents, and handing work to one. */
function agentTools(server: McpServer, kit: ToolKit): void {
  const { baton, logger, cap, maxWait, guard, waitDelegation, delegationAnswer, opts } = kit;
  server.registerTool(
    'list_agents',
    {
      title: 'List agents',
      description: `The remote A2A agents this Baton may delegate to, with the skills their cards describe. Cost: fetches each agent's card over the network (checked as a delegation would). ${UNTRUSTED_NOTE}`,
      inputSchema: {},
      outputSchema: {
        agents: z.array(
          z.object({
            name: z.string(),
            state: z.string(),
            reason: z.string().optional(),
            description: UntrustedTextSchema.optional(),
            skills: z.array(z.object({ id: z.string(), about: UntrustedTextSchema })),
          }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    guard('list_agents', async () => {
      const statuses = await agentStatusesOf(opts.agents);
      const agents = statuses.map((s) => ({
        name: s.name,
        state: s.state,
        ...(s.reason ? { reason: s.reason } : {}),
        ...(s.description ? { description: untrusted(s.description, cap) } : {}),
        skills: (s.skills ?? []).slice(0, 50).map((k) => ({
          id: k.id.slice(0, 100),
          about: untrusted(
            `${k.name}${k.description ? `: ${k.description}` : ''}${k.tags.length ? ` (tags: ${k.tags.join(', ')})` : ''}`,
            cap,
          ),
        })),
      }));
      return answer(`${agents.length} agent(s): ${agents.map((a) => `${a.name} (${a.state})`).join(', ') || 'none configured'}.`, {
        agents,
      });
    }),
  );

  server.registerTool(
    'delegate',
    {
      title: 'Delegate to an agent',
      description: `Hands work to a remote A2A agent as a durable delegation (a Temporal workflow: it survives restarts, and its result is checked by an acceptance policy before it counts). Returns the delegation id at once, or waits up to waitSeconds for it to settle or ask something. Cost: a workflow and calls to an agent you do not control, which may take minutes and may bill its owner. Give the same id again to be sure a retried call starts nothing twice. ${UNTRUSTED_NOTE}`,
      inputSchema: {
        agent: identifier.describe('The agent, as list_agents names it.'),
        ...content,
        policy: identifier.optional().describe("The acceptance policy to apply; default: the agent's configured one."),
        deadline: DurationSchema.optional().describe('Give up (TIMED_OUT, the remote task cancelled) after this long, like 15m or 2h.'),
        id: ChosenIdSchema.optional().describe(
          "Your own id for it: a second delegate with the same id is refused, so nothing starts twice. The delegation's id is then <your tenant>:<id>.",
        ),
        waitSeconds: waitSeconds(maxWait),
      },
      outputSchema: DelegationViewSchema.shape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    guard('delegate', async (args, extra) => {
      if (!Object.hasOwn(opts.agents, args.agent))
        throw new BatonError(
          'InvalidRequest',
          `no agent ${args.agent} is configured here: nothing was started; call list_agents for the names`,
        );
      await opts.limits.startWork(1);
      const id = await baton.start({
        agent: args.agent,
        parts: partsOf(args),
        ...(args.id ? { id: args.id } : {}),
        ...(args.policy ? { policy: args.policy } : {}),
        ...(args.deadline ? { contract: { deadline: args.deadline } } : {}),
      });
      logger.info({ delegationId: id, agent: args.agent }, 'delegation started over MCP');
      return delegationAnswer(await waitDelegation(id, args.waitSeconds ?? 0, extra));
    }),
  );
}

/** Reading the caller's delegations. */
function readTools(server: McpServer, kit: ToolKit): void {
  const { baton, maxWait, guard, waitDelegation, delegationAnswer } = kit;
  server.registerTool(
    'show_delegation',
    {
      title: 'Show a delegation',
      description: `A delegation's state: status, what it asks (pending), its outcome and artifacts (each readable as a resource). With waitSeconds, waits for it to settle or ask something first. Cost: reads from Temporal only. ${UNTRUSTED_NOTE}`,
      inputSchema: { id: delegationId, waitSeconds: waitSeconds(maxWait) },
      outputSchema: DelegationViewSchema.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guard('show_delegation', async (args, extra) => delegationAnswer(await waitDelegation(args.id, args.waitSeconds ?? 0, extra))),
  );

  server.registerTool(
    'list_delegations',
    {
      title: 'List delegations',
      description: `Your delegations, newest first, from Temporal's visibility (no agent is called). Filter by status, agent or outcome. ${UNTRUSTED_NOTE}`,
      inputSchema: {
        status: z.enum(DELEGATION_STATUSES).optional(),
        agent: identifier.optional(),
        outcome: z.enum(OUTCOMES).optional(),
        limit: z.number().int().min(1).max(200).optional().describe('At most this many; default 20.'),
      },
      outputSchema: {
        delegations: z.array(
          z.object({
            id: z.string(),
            agent: z.string().optional(),
            status: z.string().optional(),
            outcome: z.string().optional(),
            pendingRequestId: z.string().optional(),
            started: z.string(),
          }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guard('list_delegations', async (args) => {
      const rows = await baton.list({ ...args, limit: args.limit ?? 20 });
      const delegations = rows.map((r) => ({
        id: r.id,
        ...(r.agent ? { agent: r.agent } : {}),
        ...(r.status ? { status: r.status } : {}),
        ...(r.outcome ? { outcome: r.outcome } : {}),
        ...(r.pendingRequestId ? { pendingRequestId: r.pendingRequestId } : {}),
        started: r.started,
      }));
      return answer(`${delegations.length} delegation(s).`, { delegations });
    }),
  );
}

/** Answering, authorizing, reviewing and cancelling a delegation. */
function steeringTools(server: McpServer, kit: ToolKit): void {
  const { baton, cap, maxWait, guard, waitDelegation, delegationAnswer } = kit;
  const turnOutput = { messageId: z.string(), delegation: DelegationViewSchema };
  /** After an answer or authorization: waits for the agent's next step (a new request, or the end). */
  const afterTurn = async (id: string, answered: string, messageId: string, seconds: number, extra: Extra, what: string) => {
    const next = (now: DelegationRecord): boolean =>
      now.outcome !== undefined || (now.pending !== null && now.pending.requestId !== answered);
    const r = await waitDelegation(id, seconds, extra, next);
    const view = delegationView(r, cap);
    return answer(`${what} sent to ${r.agent.name} (message ${messageId}); the delegation is ${r.status}. ${view.next}`, {
      messageId,
      delegation: view,
    });
  };
  server.registerTool(
    'answer',
    {
      title: 'Answer an agent',
      description: `Answers what a delegation's agent asked for (pending kind input), as a new message on the same remote task. Cost: one call to the agent. ${UNTRUSTED_NOTE}`,
      inputSchema: { id: delegationId, requestId, ...content, waitSeconds: waitSeconds(maxWait) },
      outputSchema: turnOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    guard('answer', async (args, extra) => {
      const sent = await baton.answer(args.id, args.requestId, partsOf(args));
      return afterTurn(args.id, args.requestId, sent.messageId, args.waitSeconds ?? 0, extra, 'Answer');
    }),
  );

  server.registerTool(
    'authorize',
    {
      title: 'Authorize an agent',
      description: `Answers an authentication request (pending kind auth) with a credential configured on the worker, named only: its value never passes through here, the model, or history. Cost: one call to the agent. ${UNTRUSTED_NOTE}`,
      inputSchema: {
        id: delegationId,
        requestId,
        credential: z.string().min(1).max(100).describe('One of pending.credentials.'),
        waitSeconds: waitSeconds(maxWait),
      },
      outputSchema: turnOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    guard('authorize', async (args, extra) => {
      const sent = await baton.authorize(args.id, args.requestId, args.credential);
      return afterTurn(args.id, args.requestId, sent.messageId, args.waitSeconds ?? 0, extra, `Credential ${args.credential}`);
    }),
  );

  server.registerTool(
    'review',
    {
      title: 'Review a result',
      description: `Accepts or rejects a result that waits for review (pending kind review). Accepting makes it ACCEPTED; rejecting makes it REJECTED. Cost: none remote. ${UNTRUSTED_NOTE}`,
      inputSchema: {
        id: delegationId,
        requestId,
        decision: z.enum(['accept', 'reject']),
        reason: z.string().max(2_000).optional(),
      },
      outputSchema: DelegationViewSchema.shape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guard('review', async (args) => delegationAnswer(await baton.review(args.id, args.requestId, args.decision, args.reason))),
  );

  server.registerTool(
    'cancel_delegation',
    {
      title: 'Cancel a delegation',
      description: `Cancels a delegation and asks the agent to cancel its task; answers once settled (CANCELED, or the outcome it reached first). Cost: one call to the agent. ${UNTRUSTED_NOTE}`,
      inputSchema: { id: delegationId, reason: z.string().max(2_000).optional() },
      outputSchema: DelegationViewSchema.shape,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    guard('cancel_delegation', async (args) => delegationAnswer(await baton.cancel(args.id, args.reason))),
  );
}

/** Task graphs. */
function graphTools(server: McpServer, kit: ToolKit): void {
  const { graphs, logger, cap, maxWait, guard, progress, opts } = kit;
  const graphAnswer = (g: GraphRecord): CallToolResult => {
    const view = graphView(g, cap);
    return answer(`Graph ${g.id}: ${g.status}${g.outcome ? `, ${g.outcome.kind}` : ''}, ${g.size} node(s). ${view.next}`, view);
  };
  const waitGraph = (id: string, seconds: number, extra: Extra, page: Parameters<GraphClient['show']>[1] = {}) =>
    holdingStream(opts.limits, seconds > 0, () =>
      waitFor({
        read: () => graphs.show(id, page),
        done: (g) => g.outcome !== undefined,
        keyOf: (g) => `${g.status}|${JSON.stringify(g.counts)}`,
        seconds,
        everyMs: opts.watchMs,
        signal: extra.signal,
        onChange: progress(extra),
      }),
    );
  server.registerTool(
    'run_graph',
    {
      title: 'Run a task graph',
      description: `Starts a graph of delegations with dependencies (docs/graphs.md: nodes with id, agent, text, dependsOn), run in parallel where they can. Returns the graph id at once, or waits up to waitSeconds. Cost: one delegation per node, each calling its agent. ${UNTRUSTED_NOTE}`,
      inputSchema: {
        spec: z
          .record(z.string(), z.unknown())
          .describe('The graph spec, as `baton graph run` reads it: { nodes: [...], failurePolicy?, concurrency? }.'),
        id: ChosenIdSchema.optional(),
        waitSeconds: waitSeconds(maxWait),
      },
      outputSchema: GraphViewSchema.shape,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    guard('run_graph', async (args, extra) => {
      const id = await graphs.start(args.spec, {
        ...(args.id ? { id: args.id } : {}),
        knownAgents: Object.keys(opts.agents),
        admit: (spec) => opts.limits.startWork(spec.nodes.length, `a graph of ${spec.nodes.length} nodes`),
      });
      logger.info({ graphId: id }, 'graph started over MCP');
      return graphAnswer(await waitGraph(id, args.waitSeconds ?? 0, extra));
    }),
  );

  server.registerTool(
    'show_graph',
    {
      title: 'Show a task graph',
      description: `A graph's state and one page of its nodes (each node's delegation can be shown or read as a resource). Cost: reads from Temporal only. ${UNTRUSTED_NOTE}`,
      inputSchema: {
        id: z.string().min(1).max(400),
        offset: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(MAX_GRAPH_PAGE).optional(),
        state: z.enum(GRAPH_NODE_STATES).optional(),
        waitSeconds: waitSeconds(maxWait),
      },
      outputSchema: GraphViewSchema.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guard('show_graph', async (args, extra) => {
      const page = { offset: args.offset, limit: args.limit, state: args.state };
      return graphAnswer(await waitGraph(args.id, args.waitSeconds ?? 0, extra, page));
    }),
  );
}
