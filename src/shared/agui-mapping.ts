/**
 * Baton's records as AG-UI events (docs/agui.md has the table): what a delegation, a task graph or a
 * served task shows becomes a view (state, the agent's texts, steps, interrupts, how it ended), and
 * the difference between two views becomes the run's events. Pure: the endpoint reads the records
 * and writes the events; everything it decides is here.
 *
 * Agent-written text is untrusted data: it goes out as text messages marked so (`metadata.baton`),
 * under the state's `agentText` keys (an outcome's `reasons` may quote it, and a RUN_ERROR made from
 * them is marked), never as instructions, bounded like everything else.
 */
import type { Part } from './a2a-types';
import type { DelegationRecord, PendingRequest } from './delegation-types';
import type { GraphRecord } from './graph-types';
import type { WireTask } from '../served-tasks/task-view';
import { jsonPatch, type Json, type PatchOperation } from './json-patch';

/** The AG-UI protocol version Baton speaks (`@ag-ui/core` 1.0). */
export const AGUI_PROTOCOL_VERSION = '1.0';

/** Longest agent text in one message or state field; longer is cut, and says so. */
export const AGUI_TEXT_MAX = 4_000;
/** Artifacts a state lists (a delegation's are bounded already; a served task's too). */
const ARTIFACTS_MAX = 32;
/** Graph nodes a state lists: the graph record's first page. */
const NODES_MAX = 100;

/** What the front end may answer an interrupt with, by kind (AG-UI `responseSchema`). */
export type InterruptKind = PendingRequest['kind'];

export interface AguiInterrupt {
  /** The request id Baton gave the question (`<delegation id>/request-<n>`): a resume names it. */
  id: string;
  reason: 'input_required' | 'auth_required' | 'review_required';
  message: string;
  responseSchema: Record<string, Json>;
  metadata: { baton: { delegationId: string; kind: InterruptKind; untrusted: boolean; credentials?: string[]; step?: string } };
}

export type AguiEnd = { kind: 'success'; result: Json } | { kind: 'cancelled' } | { kind: 'error'; code: string; message: string };

/** What a run shows of the thread's work at one moment. */
export interface AguiView {
  state: { [key: string]: Json };
  /** The agent's texts, oldest first: each one assistant message, marked untrusted. */
  texts: { id: string; text: string }[];
  /** Graph nodes as steps, in order. */
  steps: { name: string; phase: 'waiting' | 'running' | 'finished' }[];
  /** What the work waits for; the run ends with an interrupt outcome carrying them. */
  interrupts: AguiInterrupt[];
  end?: AguiEnd;
}

/** An AG-UI event as sent (`type` one of `@ag-ui/core`'s EventType names). */
export type AguiEvent = { type: string } & { [key: string]: unknown };

const UNTRUSTED = { baton: { untrusted: true, source: 'agent' } };
const QUOTES_AGENT = { baton: { untrusted: true } };

/** `text` within AGUI_TEXT_MAX characters. */
export function bounded(text: string, max = AGUI_TEXT_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** The text of some parts: text parts as they are, data parts as JSON, files by name. */
export function textOf(parts: Part[] | undefined): string {
  return bounded(
    (parts ?? [])
      .map((p) => (p.text !== undefined ? p.text : p.data !== undefined ? JSON.stringify(p.data) : `[file ${p.filename ?? p.url ?? ''}]`))
      .join('\n'),
  );
}

const INTERRUPT_REASON = { input: 'input_required', auth: 'auth_required', review: 'review_required' } as const;

/** The answer each kind of interrupt takes, as JSON Schema (a front end builds its form from it). */
export function responseSchemaOf(kind: InterruptKind, credentials?: string[]): Record<string, Json> {
  if (kind === 'auth')
    return {
      type: 'object',
      properties: { credential: { type: 'string', ...(credentials?.length ? { enum: credentials } : {}) } },
      required: ['credential'],
    };
  if (kind === 'review')
    return {
      type: 'object',
      properties: { decision: { type: 'string', enum: ['accept', 'reject'] }, reason: { type: 'string', maxLength: 500 } },
      required: ['decision'],
    };
  return { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] };
}

/** The interrupt for a delegation's pending request. */
export function interruptOf(delegationId: string, p: PendingRequest, step?: string): AguiInterrupt {
  const asked = textOf(p.prompt);
  const fallback = { input: 'the agent asks for input', auth: 'the agent asks for authentication', review: 'the result waits for review' };
  return {
    id: p.requestId,
    reason: INTERRUPT_REASON[p.kind],
    message: asked || fallback[p.kind],
    responseSchema: responseSchemaOf(p.kind, p.credentials),
    metadata: {
      baton: {
        delegationId,
        kind: p.kind,
        // A review's text is Baton's own; an agent's question is the agent's.
        untrusted: p.kind !== 'review',
        ...(p.credentials ? { credentials: p.credentials } : {}),
        ...(step ? { step } : {}),
      },
    },
  };
}

/** The delegation id in a request id (`<delegation id>/request-<n>`), or undefined. */
export function delegationOfRequest(requestId: string): string | undefined {
  const m = /^(.+)\/request-\d+$/.exec(requestId);
  return m?.[1];
}

/** The agent's questions, each once: numbered in order, so an answered one keeps its id. */
function questionTexts(id: string, asked: (Part[] | undefined)[], open: PendingRequest | null): { id: string; text: string }[] {
  const texts = asked.map((q, n) => ({ id: `${id}/question-${n + 1}`, text: textOf(q) }));
  if (open && open.kind !== 'review') texts.push({ id: `${id}/question-${asked.length + 1}`, text: textOf(open.prompt) });
  return texts.filter((t) => t.text);
}

function artifactState(a: { artifactId: string; name?: string; mediaType?: string; size?: number; sha256?: string; parts?: Part[] }): Json {
  const text = a.parts ? textOf(a.parts) : '';
  return {
    artifactId: a.artifactId,
    ...(a.name ? { name: a.name } : {}),
    ...(a.mediaType ? { mediaType: a.mediaType } : {}),
    ...(a.size !== undefined ? { size: a.size } : {}),
    ...(a.sha256 ? { sha256: a.sha256 } : {}),
    ...(text ? { agentText: text } : {}),
  };
}

function outcomeEnd(kind: string, reasons: string[], result: Json): AguiEnd {
  if (kind === 'ACCEPTED') return { kind: 'success', result };
  if (kind === 'CANCELED') return { kind: 'cancelled' };
  return { kind: 'error', code: kind, message: bounded(`${kind}: ${reasons.join('; ') || 'no reason given'}`, 1_000) };
}

/** A delegation's view. */
export function delegationView(r: DelegationRecord): AguiView {
  const artifacts = r.artifacts.slice(0, ARTIFACTS_MAX);
  const pending = r.pending;
  return {
    state: {
      kind: 'delegation',
      id: r.id,
      agent: r.agent.name,
      status: r.status,
      remoteState: r.remote.state ?? null,
      pending: pending
        ? { requestId: pending.requestId, kind: pending.kind, ...(pending.kind !== 'review' ? { agentText: textOf(pending.prompt) } : {}) }
        : null,
      turns: r.turns.length,
      artifacts: artifacts.map(artifactState),
      outcome: r.outcome ? { kind: r.outcome.kind, reasons: r.outcome.reasons.slice(0, 5).map((x) => bounded(x, 500)) } : null,
    },
    texts: [
      ...questionTexts(
        r.id,
        r.turns.filter((t) => t.question !== undefined).map((t) => t.question),
        pending,
      ),
      ...artifacts.map((a) => ({ id: `${r.id}/artifact-${a.artifactId}`, text: a.parts ? textOf(a.parts) : '' })).filter((t) => t.text),
    ],
    steps: [],
    interrupts: pending && r.status !== 'SETTLED' ? [interruptOf(r.id, pending)] : [],
    ...(r.outcome && r.status === 'SETTLED'
      ? {
          end: outcomeEnd(r.outcome.kind, r.outcome.reasons, {
            id: r.id,
            outcome: r.outcome.kind,
            artifacts: artifacts.map((a) => ({ artifactId: a.artifactId, ...(a.name ? { name: a.name } : {}), sha256: a.sha256 })),
          }),
        }
      : {}),
  };
}

const STEP_PHASE = { PENDING: 'waiting', RUNNING: 'running', SETTLED: 'finished', SKIPPED: 'finished' } as const;

/** A graph's view; `asking`: the records of its nodes that wait for an answer (the endpoint reads them). */
export function graphView(g: GraphRecord, asking: DelegationRecord[] = []): AguiView {
  const nodes = g.nodes.slice(0, NODES_MAX);
  const stepOf = new Map(nodes.map((n) => [n.delegationId, n.id]));
  const waiting = asking.filter((d) => d.pending && d.status !== 'SETTLED');
  return {
    state: {
      kind: 'graph',
      id: g.id,
      status: g.status,
      counts: g.counts as { [key: string]: number },
      size: g.size,
      nodes: nodes.map((n) => ({
        id: n.id,
        agent: n.agent,
        status: n.status,
        delegationId: n.delegationId,
        ...(n.outcome ? { outcome: n.outcome } : {}),
        ...(n.delegation?.pendingRequest ? { pendingRequest: n.delegation.pendingRequest } : {}),
      })),
      outcome: g.outcome ? { kind: g.outcome.kind, reasons: g.outcome.reasons.slice(0, 5).map((x) => bounded(x, 500)) } : null,
    },
    texts: waiting.flatMap((d) =>
      questionTexts(
        d.id,
        d.turns.filter((t) => t.question !== undefined).map((t) => t.question),
        d.pending,
      ),
    ),
    steps: nodes.map((n) => ({ name: n.id, phase: STEP_PHASE[n.status] })),
    interrupts: waiting.map((d) => interruptOf(d.id, d.pending as PendingRequest, stepOf.get(d.id))),
    ...(g.outcome && g.status === 'SETTLED'
      ? {
          end:
            g.outcome.kind === 'FAILED'
              ? { kind: 'error', code: 'GRAPH_FAILED', message: bounded(`FAILED: ${g.outcome.reasons.join('; ')}`, 1_000) }
              : outcomeEnd(g.outcome.kind, g.outcome.reasons, {
                  id: g.id,
                  outcome: g.outcome.kind,
                  counts: g.counts as { [key: string]: number },
                }),
        }
      : {}),
  };
}

const ENDED_STATES: Record<string, string> = {
  TASK_STATE_COMPLETED: 'ACCEPTED',
  TASK_STATE_CANCELED: 'CANCELED',
  TASK_STATE_FAILED: 'REMOTE_FAILED',
  TASK_STATE_REJECTED: 'REMOTE_REJECTED',
};

/** A served task's view, from what its A2A caller sees of it. */
export function servedView(t: WireTask): AguiView {
  const state = t.status.state;
  const batonRequest = t.status.message?.metadata?.batonRequestId;
  const asking = (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED') && typeof batonRequest === 'string';
  const open: PendingRequest | null = asking
    ? {
        kind: state === 'TASK_STATE_AUTH_REQUIRED' ? 'auth' : 'input',
        requestId: batonRequest,
        prompt: t.status.message?.parts ?? [],
        taskId: t.id,
        contextId: t.contextId,
        observedAt: t.status.timestamp,
        statusKey: '',
        ...(Array.isArray(t.status.message?.metadata?.credentials)
          ? { credentials: t.status.message.metadata.credentials as string[] }
          : {}),
      }
    : null;
  const artifacts = t.artifacts.slice(0, ARTIFACTS_MAX);
  const outcome = typeof t.metadata.batonOutcome === 'string' ? t.metadata.batonOutcome : ENDED_STATES[state];
  const ended = state in ENDED_STATES;
  return {
    state: {
      kind: 'served',
      id: t.id,
      contextId: t.contextId,
      taskState: state,
      batonStatus: typeof t.metadata.batonStatus === 'string' ? t.metadata.batonStatus : null,
      pending: open ? { requestId: open.requestId, kind: open.kind, agentText: textOf(open.prompt) } : null,
      artifacts: artifacts.map(artifactState),
      outcome: ended ? (outcome ?? null) : null,
    },
    texts: [
      ...questionTexts(
        t.id,
        t.history.filter((m) => m.role === 'ROLE_AGENT').map((m) => m.parts),
        open,
      ),
      ...artifacts.map((a) => ({ id: `${t.id}/artifact-${a.artifactId}`, text: textOf(a.parts) })).filter((x) => x.text),
    ],
    steps: [],
    interrupts: open ? [interruptOf(delegationOfRequest(open.requestId) ?? t.id, open)] : [],
    ...(ended
      ? {
          end: outcomeEnd(outcome ?? 'ERROR', [textOf(t.status.message?.parts)].filter(Boolean), {
            id: t.id,
            taskState: state,
            artifacts: artifacts.map((a) => ({ artifactId: a.artifactId, ...(a.name ? { name: a.name } : {}) })),
          }),
        }
      : {}),
  };
}

/**
 * One AG-UI run over a thread's work: RUN_STARTED, the state as a snapshot then as deltas, the
 * agent's new texts, the steps that started and finished, and the end: RUN_FINISHED (success,
 * cancelled, or an interrupt outcome carrying what the work waits for) or RUN_ERROR.
 */
export class AguiRun {
  private last: AguiView | undefined;
  private readonly active = new Set<string>();
  private readonly sent: Set<string>;
  private done = false;

  constructor(
    private readonly ids: { threadId: string; runId: string },
    /** Messages the front end has (the input's): not sent again. */
    known: Iterable<string> = [],
    /** Interrupts this run answered: still shown until the work moves on, never ending the run. */
    private readonly answered: ReadonlySet<string> = new Set(),
  ) {
    this.sent = new Set(known);
  }

  /** Whether the run has ended (its last event sent). */
  get ended(): boolean {
    return this.done;
  }

  started(): AguiEvent {
    return { type: 'RUN_STARTED', ...this.ids, protocolVersion: AGUI_PROTOCOL_VERSION };
  }

  /** The events that take the front end from the last view to `view` (and end the run when `view` does). */
  next(view: AguiView): AguiEvent[] {
    if (this.done) return [];
    const events: AguiEvent[] = [];
    const before = this.last;
    if (!before) events.push({ type: 'STATE_SNAPSHOT', snapshot: view.state });
    else {
      const delta: PatchOperation[] = jsonPatch(before.state, view.state);
      if (delta.length) events.push({ type: 'STATE_DELTA', delta });
    }
    for (const step of view.steps) {
      const was = before?.steps.find((s) => s.name === step.name)?.phase;
      if (step.phase === 'running' && !this.active.has(step.name)) {
        this.active.add(step.name);
        events.push({ type: 'STEP_STARTED', stepName: step.name });
      }
      if (step.phase === 'finished' && was !== undefined && was !== 'finished') {
        // Started and finished between two reads: shown as both.
        if (!this.active.has(step.name)) events.push({ type: 'STEP_STARTED', stepName: step.name });
        this.active.delete(step.name);
        events.push({ type: 'STEP_FINISHED', stepName: step.name });
      }
    }
    for (const t of view.texts) {
      if (this.sent.has(t.id)) continue;
      this.sent.add(t.id);
      events.push(
        { type: 'TEXT_MESSAGE_START', messageId: t.id, role: 'assistant', metadata: UNTRUSTED },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: t.id, delta: t.text },
        { type: 'TEXT_MESSAGE_END', messageId: t.id },
      );
    }
    this.last = view;
    const open = view.interrupts.filter((i) => !this.answered.has(i.id));
    if (view.end) events.push(...this.finish(view.end));
    else if (open.length)
      events.push(...this.close(), { type: 'RUN_FINISHED', ...this.ids, outcome: { type: 'interrupt', interrupts: open } });
    if (view.end || open.length) this.done = true;
    return events;
  }

  /** RUN_ERROR for a failure of Baton's own (Temporal gone, say): the work itself goes on. */
  failed(code: string, message: string): AguiEvent[] {
    if (this.done) return [];
    this.done = true;
    return [...this.close(), { type: 'RUN_ERROR', code, message: bounded(message, 1_000) }];
  }

  /** Steps still under way, finished with the run (AG-UI ends no run with open steps; the next run starts them again). */
  private close(): AguiEvent[] {
    const events = [...this.active].map((stepName) => ({ type: 'STEP_FINISHED', stepName }));
    this.active.clear();
    return events;
  }

  private finish(end: AguiEnd): AguiEvent[] {
    // An outcome's reasons may quote the agent (its own status text, kept verbatim): untrusted.
    if (end.kind === 'error') return [...this.close(), { type: 'RUN_ERROR', code: end.code, message: end.message, metadata: QUOTES_AGENT }];
    return [
      ...this.close(),
      {
        type: 'RUN_FINISHED',
        ...this.ids,
        ...(end.kind === 'success' ? { result: end.result, outcome: { type: 'success' } } : { outcome: { type: 'cancelled' } }),
      },
    ];
  }
}
