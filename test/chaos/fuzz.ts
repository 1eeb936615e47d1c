/**
 * Fuzzing every boundary where outside input enters Baton, with fast-check: A2A responses, push
 * bodies and tokens, the config file, graph specs, the CLI's flag parsers, Update payloads, data-use terms
 * and AG-UI run input. For
 * each case the boundary must either accept input that an independent check finds valid, or refuse
 * it with its typed error. A crash is any other exception; a false success is accepting invalid input.
 * Shared by the CI test (a few hundred cases each) and the campaign script (10,000 each).
 */
import fc from 'fast-check';
import { InvalidArgumentError } from 'commander';
import { ConfigError, parseConfig } from '../../src/config/load';
import { UsageError } from '../../src/cli/usage-error';
import { partsFromFlags } from '../../src/cli/parts';
import { DelegationState } from '../../src/shared/delegation-state';
import { DurationSchema, type ResolvedAgent } from '../../src/shared/delegation-types';
import { findCycle, GraphSpecError, parseGraphSpec } from '../../src/shared/graph-spec';
import { StreamEventSchema, TaskSchema, TASK_STATES } from '../../src/shared/a2a-types';
import { findOneofViolation } from '../../src/shared/wire-checks';
import { taskIdOfPush } from '../../src/push/push-body';
import { pushToken, verifyPushToken } from '../../src/push/token';
import { DATA_USE_EXTENSION, refuseData, refuseForward } from '../../src/shared/data-use';
import { EventSchemas } from '@ag-ui/core/schemas';
import { answerOf, RunInputSchema } from '../../src/agui/run-input';
import { AguiRun, delegationView } from '../../src/shared/agui-mapping';
import type { DelegationRecord } from '../../src/shared/delegation-types';

export interface FuzzReport {
  boundary: string;
  cases: number;
  accepted: number;
  refused: number;
  crashes: number;
  falseSuccesses: number;
  /** Up to three examples of what went wrong, for the report. */
  examples: string[];
}

type Verdict = 'accepted' | 'refused' | { crash: string } | { falseSuccess: string };

async function run<T>(
  boundary: string,
  runs: number,
  arb: fc.Arbitrary<T>,
  check: (value: T) => Verdict | Promise<Verdict>,
): Promise<FuzzReport> {
  const report: FuzzReport = { boundary, cases: 0, accepted: 0, refused: 0, crashes: 0, falseSuccesses: 0, examples: [] };
  for (const value of fc.sample(arb, { numRuns: runs, seed: 20261202 })) {
    report.cases += 1;
    let verdict: Verdict;
    try {
      verdict = await check(value);
    } catch (err) {
      verdict = { crash: `${(err as Error)?.name}: ${(err as Error)?.message}` };
    }
    if (verdict === 'accepted') report.accepted += 1;
    else if (verdict === 'refused') report.refused += 1;
    else {
      if ('crash' in verdict) report.crashes += 1;
      else report.falseSuccesses += 1;
      if (report.examples.length < 3) report.examples.push(`${JSON.stringify(value)?.slice(0, 200)} → ${JSON.stringify(verdict)}`);
    }
  }
  return report;
}

const text = fc.string({ maxLength: 12 });

/** The agent a fuzzed delegation resolved (its registry entry's view). */
const FUZZ_AGENT: ResolvedAgent = {
  name: 'a',
  cardUrl: 'http://127.0.0.1:1/.well-known/agent-card.json',
  cardSha256: 'ab'.repeat(32),
  cardName: 'a',
  interface: { url: 'http://127.0.0.1:1/a2a/jsonrpc', binding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
  capabilities: { streaming: false, pushNotifications: false },
  defaultPolicy: 'completed-with-artifact',
  reconcile: 'list-tasks',
  contract: {},
  observe: 'poll',
};
const states = fc.oneof(fc.constantFrom(...TASK_STATES), fc.constantFrom('TASK_STATE_UNSPECIFIED', 'completed', '', 'UNRECOGNIZED'), text);
const part = fc.record(
  {
    text: fc.option(text, { nil: undefined }),
    raw: fc.option(fc.base64String({ maxLength: 8 }), { nil: undefined }),
    url: fc.option(fc.webUrl(), { nil: undefined }),
    data: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
  },
  { requiredKeys: [] },
);
const task = fc.record(
  {
    id: fc.oneof(text, fc.integer()),
    contextId: fc.oneof(text, fc.constant(undefined)),
    status: fc.oneof(
      fc.record({
        state: states,
        timestamp: fc.option(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          { nil: undefined },
        ),
      }),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    artifacts: fc.option(
      fc.array(fc.record({ artifactId: text, name: fc.option(text, { nil: undefined }), parts: fc.array(part, { maxLength: 3 }) }), {
        maxLength: 2,
      }),
      { nil: undefined },
    ),
  },
  { requiredKeys: [] },
);

const nonEmpty = fc.string({ minLength: 1, maxLength: 12 });
const onePart = fc.oneof(
  fc.record({ text }),
  fc.record({ data: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ url: fc.webUrl() }),
  fc.record({ raw: fc.base64String({ maxLength: 8 }) }),
);
/** Tasks that are valid, so the accepting side of the boundary is exercised too. */
const goodTask = fc.record({
  id: nonEmpty,
  contextId: nonEmpty,
  status: fc.record({ state: fc.constantFrom(...TASK_STATES) }),
  artifacts: fc.array(fc.record({ artifactId: nonEmpty, parts: fc.array(onePart, { minLength: 1, maxLength: 2 }) }), { maxLength: 2 }),
});

/** An independent reading of what a valid task is, to catch a schema that lets bad input through. */
function taskLooksValid(t: unknown): boolean {
  const v = t as {
    id?: unknown;
    contextId?: unknown;
    status?: { state?: unknown };
    artifacts?: { artifactId?: unknown; parts?: Record<string, unknown>[] }[];
  };
  if (typeof v?.id !== 'string' || !v.id || typeof v.contextId !== 'string' || !v.contextId) return false;
  if (!(TASK_STATES as readonly unknown[]).includes(v.status?.state)) return false;
  for (const a of v.artifacts ?? []) {
    if (typeof a.artifactId !== 'string' || !a.artifactId) return false;
    for (const p of a.parts ?? []) if (['text', 'raw', 'url', 'data'].filter((k) => p[k] !== undefined).length !== 1) return false;
  }
  return true;
}

export async function fuzzBoundaries(runs: number): Promise<FuzzReport[]> {
  const reports: FuzzReport[] = [];

  reports.push(
    await run(
      'A2A responses (Task, StreamResponse)',
      runs,
      fc.oneof(
        task,
        goodTask,
        fc.record({ task: fc.oneof(task, goodTask) }),
        fc.record({ statusUpdate: fc.jsonValue({ maxDepth: 2 }) }),
        fc.jsonValue({ maxDepth: 3 }),
      ),
      (raw) => {
        const oneof = findOneofViolation(raw);
        const asTask = TaskSchema.safeParse(raw);
        const asEvent = StreamEventSchema.safeParse(raw);
        if (!asTask.success && !asEvent.success) return 'refused';
        if (oneof) return { falseSuccess: `accepted despite ${oneof}` };
        const t = asTask.success ? raw : (raw as { task?: unknown }).task;
        if (t !== undefined && (asTask.success || 'task' in (raw as object)) && !taskLooksValid(t))
          return { falseSuccess: 'a task the independent check refuses' };
        return 'accepted';
      },
    ),
  );

  const secret = 'fuzz-secret';
  reports.push(
    await run(
      'push bodies and tokens',
      runs,
      fc.tuple(
        fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.record({ statusUpdate: fc.record({ taskId: fc.oneof(nonEmpty, fc.integer()) }) }),
          fc.record({ task: fc.record({ id: fc.oneof(nonEmpty, fc.constant('')) }) }),
          fc.record({ kind: fc.constantFrom('task', 'status-update', 'nope'), id: nonEmpty, taskId: nonEmpty }),
        ),
        text,
        text,
        fc.string({ maxLength: 60 }),
      ),
      ([body, delegationId, taskId, token]) => {
        const named = taskIdOfPush(body);
        if (named !== undefined && (typeof named !== 'string' || !named)) return { falseSuccess: `task id ${JSON.stringify(named)}` };
        if (verifyPushToken(secret, delegationId, taskId, token) && token !== pushToken(secret, delegationId, taskId))
          return { falseSuccess: 'a forged token verified' };
        if (delegationId && taskId && !verifyPushToken(secret, delegationId, taskId, pushToken(secret, delegationId, taskId)))
          return { crash: 'a genuine token did not verify' };
        return named === undefined ? 'refused' : 'accepted';
      },
    ),
  );

  const agentEntry = fc.record(
    {
      card: fc.oneof(fc.webUrl(), text),
      allowHttp: fc.oneof(fc.boolean(), text),
      observe: fc.oneof(fc.constantFrom('auto', 'stream', 'poll', 'push'), text),
      contract: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: ['card'] },
  );
  reports.push(
    await run(
      'config file',
      runs,
      fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.record(
          {
            agents: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), agentEntry, { maxKeys: 3 }),
            push: fc.option(fc.record({ url: fc.oneof(fc.webUrl(), text) }), { nil: undefined }),
          },
          { requiredKeys: [] },
        ),
      ),
      (raw) => {
        try {
          const config = parseConfig(raw, 'fuzz');
          for (const [name, entry] of Object.entries(config.agents))
            if (!/^https?:\/\//.test(entry.card)) return { falseSuccess: `agents.${name}.card ${entry.card}` };
          return 'accepted';
        } catch (err) {
          if (err instanceof ConfigError) return 'refused';
          throw err;
        }
      },
    ),
  );

  const nodeIds = fc.oneof(
    { weight: 9, arbitrary: fc.constantFrom('a', 'b', 'c', 'd', 'e') },
    { weight: 1, arbitrary: fc.constantFrom('x y', '') },
  );
  const node = fc.record(
    {
      id: nodeIds,
      agent: fc.constantFrom('skyway-air', 'harbor-hotel', 'skyway-air', 'Bad Agent'),
      text: fc.option(nonEmpty, { nil: undefined, freq: 8 }),
      dependsOn: fc.option(fc.array(nodeIds, { maxLength: 2 }), { nil: undefined }),
      refines: fc.option(nodeIds, { nil: undefined, freq: 8 }),
    },
    { requiredKeys: ['id', 'agent', 'text'] },
  );
  // Well-formed DAGs too (dependencies only on earlier nodes), so the accepting side is exercised.
  const dag = fc.array(fc.array(fc.nat(5), { maxLength: 2 }), { minLength: 1, maxLength: 6 }).map((deps) => ({
    nodes: deps.map((d, i) => ({
      id: `n${i}`,
      agent: 'skyway-air',
      text: `step ${i}`,
      dependsOn: [...new Set(d.filter((j) => j < i).map((j) => `n${j}`))],
    })),
  }));
  reports.push(
    await run(
      'graph specs',
      runs,
      fc.oneof(
        dag,
        fc.record(
          {
            nodes: fc.uniqueArray(node, { maxLength: 4, selector: (n) => n.id }),
            failurePolicy: fc.option(fc.constantFrom('fail-fast', 'continue', 'never'), { nil: undefined }),
          },
          { requiredKeys: ['nodes'] },
        ),
        fc.jsonValue({ maxDepth: 3 }),
      ),
      (raw) => {
        try {
          const spec = parseGraphSpec(raw, ['skyway-air', 'harbor-hotel']);
          const ids = new Set(spec.nodes.map((n) => n.id));
          if (ids.size !== spec.nodes.length) return { falseSuccess: 'duplicate node ids' };
          if (spec.nodes.some((n) => n.dependsOn.some((d) => !ids.has(d)))) return { falseSuccess: 'an unknown dependency' };
          if (findCycle(spec.nodes)) return { falseSuccess: 'a cycle' };
          return 'accepted';
        } catch (err) {
          if (err instanceof GraphSpecError) return 'refused';
          throw err;
        }
      },
    ),
  );

  reports.push(
    await run(
      'CLI flag parsers (parts, durations)',
      runs,
      fc.tuple(
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        fc.string({ maxLength: 8 }),
      ),
      ([t, file, duration]) => {
        let verdict: Verdict = 'accepted';
        try {
          const parts = partsFromFlags({ text: t, dataFile: file ? `/nonexistent/${file}` : undefined }, 'the request');
          if (!parts.length) return { falseSuccess: 'no parts' };
        } catch (err) {
          if (!(err instanceof UsageError || err instanceof InvalidArgumentError)) throw err;
          verdict = 'refused';
        }
        const d = DurationSchema.safeParse(duration);
        if (d.success && !/^\d+(ms|s|m|h|d)$/.test(duration)) return { falseSuccess: `duration ${duration}` };
        return verdict;
      },
    ),
  );

  const caller = fc.oneof(
    fc.record({ tenant: fc.constantFrom('acme', 'globex', ''), user: fc.constantFrom('ops-1', 'x') }),
    fc.jsonValue({ maxDepth: 1 }),
  );
  const requestId = fc.oneof(fc.constantFrom('d1/request-1', 'd1/request-1', 'd1/request-2', ''), fc.integer());
  const who = fc.oneof(fc.constant({ tenant: 'acme', user: 'ops-1' }), caller);
  const loose = fc.jsonValue({ maxDepth: 2 });
  const payloads = fc.oneof(
    fc
      .record(
        {
          requestId,
          parts: fc.oneof(fc.array(onePart, { minLength: 1, maxLength: 2 }), fc.array(part, { maxLength: 2 }), text),
          caller: who,
        },
        { requiredKeys: [] },
      )
      .map((p) => ['answer', p] as const),
    fc
      .record(
        {
          requestId,
          credential: fc.oneof(fc.constantFrom('erp', 'erp', 'other', 'BATON_PUSH_SECRET', 'Erp', ''), text),
          secretRef: fc.oneof(fc.record({ fromEnv: fc.constantFrom('BATON_PUSH_SECRET', 'not a name', '') }), text),
          caller: who,
        },
        { requiredKeys: [] },
      )
      .map((p) => ['authorize', p] as const),
    fc
      .record({ requestId, decision: fc.constantFrom('accept', 'reject', 'maybe'), caller: who }, { requiredKeys: [] })
      .map((p) => ['review', p] as const),
    fc.record({ caller: who, reason: fc.option(text, { nil: undefined }) }, { requiredKeys: [] }).map((p) => ['cancel', p] as const),
    fc.tuple(fc.constantFrom('answer', 'authorize', 'review', 'cancel'), loose),
  );
  reports.push(
    await run(
      'Update and Signal payloads (answer, authorize, review, cancel)',
      runs,
      fc.tuple(payloads, fc.constantFrom('input', 'auth') as fc.Arbitrary<'input' | 'auth'>),
      ([[kind, p], pendingKind]) => {
        // The delegation's own checks, as its validators run them: an agent that allows one credential.
        const state = new DelegationState('d1', { agent: 'a', parts: [{ text: 'x' }], tenant: 'acme', owner: 'ops-1' });
        state.resolved({ agent: { ...FUZZ_AGENT, credentials: ['erp'] } }, 0, 0);
        state.observed({
          taskId: 't',
          contextId: 'c',
          state: pendingKind === 'auth' ? 'TASK_STATE_AUTH_REQUIRED' : 'TASK_STATE_INPUT_REQUIRED',
          observedAt: 'now',
          artifacts: [],
          statusParts: [{ text: '?' }],
        });
        const admitted = (k: 'input' | 'auth') => {
          const a = state.admit(k, p);
          return 'refused' in a ? a.refused : undefined;
        };
        const why =
          kind === 'answer'
            ? admitted('input')
            : kind === 'authorize'
              ? admitted('auth')
              : kind === 'review'
                ? state.refuseReview(p)
                : state.refuseCancel(p);
        if (why) return 'refused';
        // Accepted: from the delegation's tenant, and (but for cancel) for the pending request of its kind;
        // an authorization only by the one credential the agent's entry allows.
        const data = p as { requestId?: unknown; caller?: { tenant?: unknown }; credential?: unknown; secretRef?: unknown };
        if (data.caller?.tenant !== 'acme') return { falseSuccess: 'another tenant was let in' };
        if (kind === 'cancel') return 'accepted';
        if (data.requestId !== 'd1/request-1') return { falseSuccess: `${kind} for ${String(data.requestId)} accepted` };
        if ((kind === 'answer' && pendingKind !== 'input') || (kind === 'authorize' && pendingKind !== 'auth') || kind === 'review') {
          return { falseSuccess: `${kind} accepted for a pending ${pendingKind} request` };
        }
        if (kind === 'authorize' && (data.credential !== 'erp' || data.secretRef !== undefined))
          return { falseSuccess: `authorize ${JSON.stringify(p)} accepted` };
        return 'accepted';
      },
    ),
  );

  reports.push(await fuzzDataUse(runs));
  reports.push(await fuzzAgui(runs));
  return reports;
}

/**
 * Data labels and terms on parts (docs/data-use.md), as a delegation's turn and as a served agent's
 * incoming message: the worker's check (`refuseData`) and the served check (`refuseForward`) against
 * an agent cleared for public and internal. Accepted is checked independently, field by field.
 */
async function fuzzDataUse(runs: number): Promise<FuzzReport> {
  const known = ['skyway-air', 'http://127.0.0.1:1/.well-known/agent-card.json'];
  const rules = {
    labels: ['public', 'internal', 'confidential', 'personal'],
    open: 'public',
    agents: [{ name: known[0] as string, card: known[1] as string }],
  };
  const cleared = ['public', 'internal'];
  const label = fc.oneof(fc.constantFrom('public', 'internal', 'confidential', 'secret', 'Internal', '', 'a'.repeat(65)), text);
  const terms = fc.record(
    {
      purpose: fc.oneof(fc.constantFrom('audit', '', 'x'.repeat(201)), text),
      retention: fc.constantFrom('30d', '90s', 'a month', '', '1w'),
      forwarding: fc.constantFrom('none', 'listed-agents', 'any', 'sometimes'),
      agents: fc.oneof(fc.array(fc.constantFrom(...known, 'nobody'), { maxLength: 3 }), fc.constant('skyway-air')),
      actions: fc.oneof(fc.array(fc.constantFrom('summarize', 'translate', 'Do It', ''), { maxLength: 3 }), fc.constant([])),
      extra: fc.constant(1),
    },
    { requiredKeys: [] },
  );
  const use = fc.oneof(
    { weight: 4, arbitrary: fc.record({ label, terms }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.record({ label, colour: text }, { requiredKeys: ['colour'] }) },
    { weight: 1, arbitrary: fc.oneof(text, fc.integer(), fc.constant(null), fc.array(text)) },
  );
  const part = fc.record({ text, metadata: fc.option(fc.dictionary(fc.constant(DATA_USE_EXTENSION), use), { nil: undefined }) });
  const label$ = /^[a-z0-9][a-z0-9-]*$/;
  const action$ = /^[a-z][a-z0-9-]*$/;
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  /** Independently: is this part's data use well formed, cleared for the agent and its agents known? Its label, or undefined. */
  const valid = (meta: unknown): { ok: boolean; label?: string; forwarding?: string; agents?: string[] } => {
    if (meta === undefined) return { ok: true };
    if (!isObject(meta) || Object.keys(meta).some((k) => k !== 'label' && k !== 'terms')) return { ok: false };
    const l = meta.label;
    if (l !== undefined && (typeof l !== 'string' || !label$.test(l) || l.length > 64 || !cleared.includes(l))) return { ok: false };
    const t = meta.terms;
    if (t === undefined) return { ok: true, ...(l ? { label: l as string } : {}) };
    if (!isObject(t) || Object.keys(t).some((k) => !['purpose', 'retention', 'forwarding', 'agents', 'actions'].includes(k)))
      return { ok: false };
    if (t.purpose !== undefined && (typeof t.purpose !== 'string' || t.purpose.length < 1 || t.purpose.length > 200)) return { ok: false };
    if (t.retention !== undefined && !(typeof t.retention === 'string' && DurationSchema.safeParse(t.retention).success))
      return { ok: false };
    if (t.forwarding !== undefined && !['none', 'listed-agents', 'any'].includes(t.forwarding as string)) return { ok: false };
    const agents = t.agents;
    if (agents !== undefined && (!Array.isArray(agents) || agents.length < 1 || t.forwarding !== 'listed-agents')) return { ok: false };
    if (t.forwarding === 'listed-agents' && agents === undefined) return { ok: false };
    if (agents && (agents as unknown[]).some((a) => typeof a !== 'string' || !known.includes(a))) return { ok: false };
    const actions = t.actions;
    if (
      actions !== undefined &&
      (!Array.isArray(actions) || actions.length < 1 || actions.some((a) => typeof a !== 'string' || !action$.test(a)))
    )
      return { ok: false };
    return {
      ok: true,
      ...(l ? { label: l as string } : {}),
      forwarding: t.forwarding as string,
      ...(agents ? { agents: agents as string[] } : {}),
    };
  };
  return run(
    'data labels and terms on parts (a turn to an agent, a served message)',
    runs,
    fc.tuple(fc.array(part, { minLength: 1, maxLength: 3 }), fc.boolean()),
    ([parts, served]) => {
      const target = { name: 'skyway-air', card: known[1] as string, cleared };
      const refusal = served ? refuseForward(parts, 'gw', [target], rules)?.reason : refuseData(parts, 'skyway-air', cleared, rules);
      if (refusal) return 'refused';
      for (const p of parts) {
        const v = valid(p.metadata?.[DATA_USE_EXTENSION]);
        if (!v.ok) return { falseSuccess: `accepted ${JSON.stringify(p.metadata)}` };
        if (served && v.forwarding === 'none') return { falseSuccess: 'forwarded data whose terms forbid it' };
        if (served && v.forwarding === 'listed-agents' && !v.agents?.some((a) => a === target.name || a === target.card))
          return { falseSuccess: 'forwarded data to an agent its terms do not list' };
      }
      return 'accepted';
    },
  );
}

/**
 * AG-UI (docs/agui.md): a front end's RunAgentInput with its resume answers, and what an agent wrote
 * (its question, its artifacts, its reasons) as the run's events. Input is accepted only when an
 * independent check finds it valid; every event a record becomes must pass `@ag-ui/core`'s own schema
 * (an event it refuses would break the front end's stream: a false success).
 */
async function fuzzAgui(runs: number): Promise<FuzzReport> {
  const id = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('thread-1', 'run-2', 'a') },
    text,
    fc.constantFrom('', 'x'.repeat(201), 't\n'),
  );
  const message = fc.record(
    {
      id: fc.oneof({ weight: 4, arbitrary: fc.constant('m-1') }, text),
      role: fc.constantFrom('user', 'user', 'assistant', '', 'tool'),
      content: fc.oneof(
        { weight: 4, arbitrary: text },
        fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 }),
        fc.integer(),
      ),
    },
    { requiredKeys: ['id', 'role'] },
  );
  const payload = fc.oneof(
    text,
    fc.record({ text }),
    fc.record({ credential: text }),
    fc.record({ decision: fc.constantFrom('accept', 'reject', 'maybe'), reason: text }, { requiredKeys: ['decision'] }),
    fc.integer(),
    fc.constant(null),
  );
  const entry = fc.record(
    {
      interruptId: fc.oneof(text, fc.constant('acme:d/request-1')),
      status: fc.constantFrom('resolved', 'resolved', 'cancelled', 'done'),
      payload,
    },
    { requiredKeys: ['interruptId', 'status'] },
  );
  const input = fc.record(
    {
      threadId: id,
      runId: id,
      messages: fc.oneof({ weight: 4, arbitrary: fc.array(message, { maxLength: 2 }) }, fc.constant('no')),
      resume: fc.array(entry, { maxLength: 1 }),
      forwardedProps: fc.oneof(
        fc.constant({}),
        fc.constantFrom('the front end’s own', 7, null, [1]),
        fc.record({ baton: fc.oneof(fc.constant({ cancel: true }), fc.constant({ cancel: 'yes' }), fc.constant({ other: 1 })) }),
      ),
    },
    { requiredKeys: ['threadId', 'runId', 'messages'] },
  );
  const hostile = fc.oneof(text, fc.constantFrom('', '\u0000', '</script><b>', 'x'.repeat(5_000), '\ud800'));
  const printable = /^[\x20-\x7e]+$/;
  const validId = (v: unknown): boolean => typeof v === 'string' && v.length >= 1 && v.length <= 200;
  // Any content is the front end's (Baton reads only a user message's text).
  const validMessage = (m: { id: string; role: string }): boolean => m.id.length >= 1 && m.role.length >= 1;
  return run(
    'AG-UI run input, resume answers, and what an agent wrote as events',
    runs,
    fc.tuple(input, fc.constantFrom('input', 'auth', 'review') as fc.Arbitrary<'input' | 'auth' | 'review'>, hostile, hostile),
    ([given, kind, question, artifact]) => {
      // What an agent wrote never makes an event the AG-UI schema refuses.
      const record = {
        id: 'acme:d',
        tenant: 'acme',
        owner: 'o',
        agent: { name: 'a' },
        status: 'WAITING_INPUT',
        remote: { history: [] },
        pending: {
          kind: 'input',
          requestId: 'acme:d/request-1',
          prompt: [{ text: question }],
          taskId: 't',
          contextId: 'c',
          observedAt: '',
          statusKey: '',
        },
        turns: [],
        notes: [],
        refusedSignals: [],
        remoteCalls: 0,
        artifacts: [{ artifactId: artifact.slice(0, 40), size: 1, sha256: 'ab', parts: [{ text: artifact }] }],
      } as unknown as DelegationRecord;
      const agui = new AguiRun({ threadId: 't', runId: 'r' });
      for (const event of [agui.started(), ...agui.next(delegationView(record))])
        if (!EventSchemas.safeParse(event).success)
          return { falseSuccess: `an event AG-UI refuses: ${JSON.stringify(event).slice(0, 120)}` };
      const parsed = RunInputSchema.safeParse(given);
      if (!parsed.success) return 'refused';
      const g = given as {
        threadId: unknown;
        runId: unknown;
        messages: unknown;
        resume?: { status: string }[];
        forwardedProps?: unknown;
      };
      if (!validId(g.threadId) || !printable.test(g.threadId as string) || !validId(g.runId)) return { falseSuccess: 'a bad id accepted' };
      if (!Array.isArray(g.messages) || !(g.messages as { id: string; role: string }[]).every(validMessage))
        return { falseSuccess: 'bad messages accepted' };
      if ((g.resume ?? []).some((r) => r.status !== 'resolved' && r.status !== 'cancelled'))
        return { falseSuccess: 'a bad resume accepted' };
      const props = g.forwardedProps;
      const baton = (
        typeof props === 'object' && props !== null && !Array.isArray(props) ? (props as { baton?: unknown }).baton : undefined
      ) as { cancel?: unknown; other?: unknown } | undefined;
      if (baton && (baton.other !== undefined || (baton.cancel !== undefined && baton.cancel !== true)))
        return { falseSuccess: 'bad forwardedProps accepted' };
      for (const r of parsed.data.resume ?? []) {
        let answer: ReturnType<typeof answerOf>;
        try {
          answer = answerOf(kind, r);
        } catch (err) {
          if ((err as { kind?: string }).kind === 'InvalidRequest') continue;
          throw err;
        }
        const p = r.payload as { text?: unknown; credential?: unknown; decision?: unknown } | string;
        const ok =
          kind === 'input'
            ? (typeof p === 'string' && p.length > 0) ||
              (typeof p === 'object' && p !== null && typeof p.text === 'string' && p.text.length > 0 && Object.keys(p).length === 1)
            : kind === 'auth'
              ? typeof p === 'object' &&
                p !== null &&
                typeof p.credential === 'string' &&
                p.credential.length > 0 &&
                p.credential.length <= 100 &&
                Object.keys(p).length === 1
              : typeof p === 'object' && p !== null && (p.decision === 'accept' || p.decision === 'reject');
        if (!ok || answer.kind !== kind) return { falseSuccess: `a ${kind} answer ${JSON.stringify(r.payload)} accepted` };
      }
      return 'accepted';
    },
  );
}
