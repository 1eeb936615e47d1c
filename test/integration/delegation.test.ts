/**
 * delegationWorkflow end to end: a real Temporal server, a real worker, the real supplier-qa agent
 * over HTTP on loopback.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { temporal } from '@temporalio/proto';
import { FsArtifactStore, type ArtifactStore } from '../../src/artifacts/store';
import { BatonClient } from '../../src/client/baton-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { startingAttributes } from '../../src/shared/search-attributes';
import { statusQuery } from '../../workflows/messages';
import { batonFor, historyText, loopbackAgent, withWorker, type TestWorkerContext } from '../helpers/temporal';

const REQUEST = [{ text: 'Verify inspection report inspection-92 against order A1042 for product SN-4471', mediaType: 'text/plain' }];

const EventType = temporal.api.enums.v1.EventType;
const batonOf = (ctx: TestWorkerContext): BatonClient => batonFor(ctx);

describe('delegation to supplier-qa', () => {
  let agent: RunningAgent;
  before(async () => {
    agent = await startAgentServer(supplierQa({ workMs: 100 }));
  });
  after(async () => {
    await agent.close();
  });

  it('is ACCEPTED with the remote ids, state history, artifact digest, and logs that carry both ids', async () => {
    const logLines: Record<string, unknown>[] = [];
    await withWorker(
      { 'supplier-qa': loopbackAgent(agent.url) },
      async (ctx) => {
        const baton = batonOf(ctx);
        const id = await baton.start({ agent: 'supplier-qa', parts: REQUEST });
        const record = await baton.result(id);

        assert.equal(record.outcome?.kind, 'ACCEPTED');
        assert.equal(record.status, 'SETTLED');
        assert.equal(record.tenant, 'acme');
        assert.equal(record.owner, 'ops-1');
        assert.equal(record.policy, 'completed-with-artifact');
        assert.match(record.agent.cardSha256 ?? '', /^[0-9a-f]{64}$/);
        assert.equal(record.agent.interface?.binding, 'JSONRPC');
        assert.equal(record.agent.interface?.url, `${agent.url}/a2a/jsonrpc`);
        assert.ok(record.remote.taskId && record.remote.contextId);
        assert.equal(record.remote.state, 'TASK_STATE_COMPLETED');
        assert.equal(record.remote.history.at(-1)?.state, 'TASK_STATE_COMPLETED');
        assert.deepEqual(
          record.turns.map((t) => t.messageId),
          [`${id}/turn-1`],
        );

        assert.equal(record.artifacts.length, 1);
        const [artifact] = record.artifacts;
        assert.equal(artifact?.name, 'verdict');
        assert.equal(artifact?.mediaType, 'application/json');
        const bytes = Buffer.from(JSON.stringify(artifact?.parts));
        assert.equal(artifact?.sha256, createHash('sha256').update(bytes).digest('hex'));
        assert.equal(artifact?.size, bytes.length);
        assert.deepEqual((artifact?.parts?.[0]?.data as { order: string }).order, 'A1042');

        // The Query gives the same record after the workflow closed.
        assert.deepEqual(await ctx.client.workflow.getHandle(id).query(statusQuery), record);

        const created = logLines.find((l) => l.msg === 'remote task created');
        assert.equal(created?.delegationId, id);
        assert.equal(created?.remoteTaskId, record.remote.taskId);
        assert.ok(logLines.some((l) => l.msg === 'remote state' && l.delegationId === id && l.remoteTaskId === record.remote.taskId));
      },
      { logLines },
    );
  });

  it('talks HTTP+JSON when the registry prefers it', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(agent.url, { binding: 'HTTP+JSON' }) }, async (ctx) => {
      const baton = batonOf(ctx);
      const record = await baton.result(await baton.start({ agent: 'supplier-qa', parts: REQUEST }));
      assert.equal(record.agent.interface?.binding, 'HTTP+JSON');
      assert.equal(record.outcome?.kind, 'ACCEPTED');
    });
  });

  it('delegates to a 0.3 agent through the compatibility layer and records the interface', async () => {
    const old = await startAgentServer(supplierQa({ workMs: 50 }), { protocol: '0.3' });
    try {
      await withWorker({ 'old-qa': loopbackAgent(old.url) }, async (ctx) => {
        const baton = batonOf(ctx);
        const record = await baton.result(await baton.start({ agent: 'old-qa', parts: REQUEST }));
        assert.equal(record.outcome?.kind, 'ACCEPTED');
        assert.match(record.agent.interface?.protocolVersion ?? '', /^0\.3/);
      });
    } finally {
      await old.close();
    }
  });

  it('keeps the agent refusal as REMOTE_REJECTED with its words', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(agent.url) }, async (ctx) => {
      const baton = batonOf(ctx);
      const record = await baton.result(await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Check something, please.' }] }));
      assert.equal(record.outcome?.kind, 'REMOTE_REJECTED');
      assert.ok(record.outcome?.reasons.includes('agent said: Name an order (like A1042) and an inspection report (like inspection-92).'));
      assert.equal(record.remote.state, 'TASK_STATE_REJECTED');
    });
  });

  it('ends in ERROR with a typed reason for an unknown policy, an unknown agent, and a refused card', async () => {
    await withWorker(
      { 'supplier-qa': loopbackAgent(agent.url), 'plain-http': loopbackAgent(agent.url, { allowHttp: false }) },
      async (ctx) => {
        const baton = batonOf(ctx);
        const unknownPolicy = await baton.result(await baton.start({ agent: 'supplier-qa', parts: REQUEST, policy: 'no-such-policy' }));
        assert.equal(unknownPolicy.outcome?.kind, 'ERROR');
        assert.match(unknownPolicy.outcome?.reasons[0] ?? '', /^ConfigInvalid: unknown acceptance policy "no-such-policy"/);
        assert.equal(unknownPolicy.remote.state, 'TASK_STATE_COMPLETED', 'the remote state is kept even when acceptance cannot run');

        const unknownAgent = await baton.result(await baton.start({ agent: 'nobody', parts: REQUEST }));
        assert.match(
          unknownAgent.outcome?.reasons[0] ?? '',
          /^ConfigInvalid: unknown agent "nobody"; known agents: supplier-qa, plain-http/,
        );

        const refused = await baton.result(await baton.start({ agent: 'plain-http', parts: REQUEST }));
        assert.equal(refused.outcome?.kind, 'ERROR');
        assert.match(refused.outcome?.reasons[0] ?? '', /^TrustRefused: .*only https is allowed/);
        assert.equal(refused.remote.taskId, undefined, 'nothing was sent to a refused agent');
      },
    );
  });

  it('costs one workflow task and one search-attribute write when the agent completes at once', async () => {
    const instant = await startAgentServer(supplierQa({ workMs: 0 }));
    const artifactsPath = mkdtempSync(join(tmpdir(), 'baton-card-store-'));
    try {
      await withWorker(
        { 'supplier-qa': loopbackAgent(instant.url) },
        async (ctx) => {
          const kinds = async (id: string) =>
            ((await ctx.client.workflow.getHandle(id).fetchHistory()).events ?? []).map((e) => EventType[e.eventType ?? 0]);
          const count = (events: string[], kind: string) => events.filter((k) => k === `EVENT_TYPE_${kind}`).length;

          // As started by Baton: the first send is a local activity in the first workflow task.
          const id = await batonOf(ctx).start({ agent: 'supplier-qa', parts: REQUEST });
          const record = await batonOf(ctx).result(id);
          assert.equal(record.outcome?.kind, 'ACCEPTED');
          assert.deepEqual(record.notes, [], 'the send did not look for the turn first');
          const fast = await kinds(id);
          assert.equal(fast.length, 9, `nine events: ${fast.join(', ')}`);
          assert.equal(count(fast, 'WORKFLOW_TASK_COMPLETED'), 1, 'one workflow task');
          assert.equal(count(fast, 'MARKER_RECORDED'), 2, "the patch's marker and the local activity's");
          assert.equal(count(fast, 'ACTIVITY_TASK_SCHEDULED'), 0, 'no task-queue activity');
          assert.equal(count(fast, 'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES'), 2, "the patch's and Baton's, at the end");
          await assertLeanHistory(ctx, id, record, artifactsPath);

          // A start without the input flags 0.9.0 workers read (by hand, or by another client) takes
          // the same one path: 1.0 workers ignore the flags (decision 0033).
          const input = { agent: 'supplier-qa', parts: REQUEST, tenant: 'acme', owner: 'ops-1' };
          await ctx.client.workflow.start('delegationWorkflow', {
            workflowId: `${id}-by-hand`,
            taskQueue: ctx.taskQueue,
            args: [input],
            typedSearchAttributes: startingAttributes(input),
          });
          assert.equal((await batonOf(ctx).result(`${id}-by-hand`)).outcome?.kind, 'ACCEPTED');
          const byHand = await kinds(`${id}-by-hand`);
          assert.deepEqual(byHand, fast, 'the same events as a start by Baton');
        },
        { artifactsPath },
      );
    } finally {
      await instant.close();
      rmSync(artifactsPath, { recursive: true, force: true });
    }
  });

  it('keeps the card in history when the artifact store fails or does not answer, and says so once', async () => {
    const instant = await startAgentServer(supplierQa({ workMs: 0 }));
    const artifactsPath = mkdtempSync(join(tmpdir(), 'baton-card-refused-'));
    const working = new FsArtifactStore(artifactsPath);
    // A store that refuses writes (a bucket gone read-only), and one that does not answer (out of reach).
    const stores: [string, () => Promise<never>, RegExp][] = [
      ['refusing', () => Promise.reject(new Error('the store is read-only today')), /read-only today/],
      ['silent', () => new Promise<never>(() => {}), /no answer within 1000 ms/],
    ];
    try {
      for (const [kind, put, why] of stores) {
        const logLines: Record<string, unknown>[] = [];
        const store: ArtifactStore = Object.assign(Object.create(working) as FsArtifactStore, { put });
        await withWorker(
          { 'supplier-qa': loopbackAgent(instant.url) },
          async (ctx) => {
            // One after the other: the second reuses the fetched card, and the store is not asked again.
            for (const _ of [1, 2]) {
              const id = await batonOf(ctx).start({ agent: 'supplier-qa', parts: REQUEST });
              const record = await batonOf(ctx).result(id);
              assert.equal(record.outcome?.kind, 'ACCEPTED', `${kind}: the delegation goes on`);
              const text = await historyText(ctx.client, id);
              assert.ok(text.includes('"supportedInterfaces"'), `${kind}: the card itself is in the history`);
              assert.ok(!text.includes(`"stored":"sha256:`), `${kind}: no reference to a card the store does not have`);
            }
            const said = logLines.filter((l) => String(l.msg).includes('did not take the card'));
            assert.equal(said.length, 1, `${kind}: the worker says so once`);
            assert.match(String(said[0]?.err), why);
          },
          { artifactStore: store, logLines },
        );
      }
    } finally {
      await instant.close();
      rmSync(artifactsPath, { recursive: true, force: true });
    }
  });

  it('sends from the task queue what the first workflow task could not: a late answer (looked for first), a 0.3 agent', async () => {
    const created: string[] = [];
    let sends = 0;
    // The first SendMessage is acted on, but answered after the local activity's 4 s are over.
    const late = await startAgentServer(supplierQa({ workMs: 0, onTaskCreated: (id) => created.push(id) }), {
      holdResponse: (method) => (method === 'SendMessage' && ++sends === 1 ? 6_000 : 0),
    });
    const legacy = await startAgentServer(supplierQa({ workMs: 0 }), { protocol: '0.3' });
    try {
      await withWorker({ 'late-qa': loopbackAgent(late.url), 'legacy-qa': loopbackAgent(legacy.url) }, async (ctx) => {
        const scheduled = async (id: string) =>
          ((await ctx.client.workflow.getHandle(id).fetchHistory()).events ?? []).flatMap(
            (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
          );
        const baton = batonOf(ctx);
        const lateId = await baton.start({ agent: 'late-qa', parts: REQUEST });
        const record = await baton.result(lateId);
        assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
        assert.equal(created.length, 1, 'the agent saw one task created');
        assert.deepEqual(record.notes, [
          `turn ${lateId}/turn-1: its response was lost; the agent already had it, so it was not sent again`,
        ]);
        assert.deepEqual(await scheduled(lateId), ['resolveAndSend'], 'the task-queue send took over');

        // A 0.3 agent cannot list its tasks, so a lost local send could not be found: the task queue sends.
        const legacyId = await baton.start({ agent: 'legacy-qa', parts: REQUEST });
        assert.equal((await baton.result(legacyId)).outcome?.kind, 'ACCEPTED');
        assert.deepEqual(await scheduled(legacyId), ['resolveAndSend']);
      });
    } finally {
      await late.close();
      await legacy.close();
    }
  });

  it('refuses invalid input before starting anything', async () => {
    await withWorker({}, async (ctx) => {
      await assert.rejects(batonOf(ctx).start({ agent: 'supplier-qa', parts: [] }), /invalid delegation: parts/);
      await assert.rejects(batonOf(ctx).start({ agent: 'bad agent name!', parts: REQUEST }), /invalid delegation: agent/);
    });
  });
});

/**
 * A simple delegation's history names its card by digest (the bytes are in the store, once, with the
 * delegation in the store's reference index) and writes only the search attributes that changed.
 */
async function assertLeanHistory(ctx: TestWorkerContext, id: string, record: DelegationRecord, artifactsPath: string): Promise<void> {
  const ref = `sha256:${record.agent.cardSha256}` as const;
  const text = await historyText(ctx.client, id);
  assert.ok(text.includes(`"stored":"${ref}"`), 'the history names the stored card');
  assert.ok(!text.includes('"supportedInterfaces"'), 'the card itself is not in the history');
  const store = new FsArtifactStore(artifactsPath);
  const card = JSON.parse((await store.get(ref)).toString('utf8')) as { name?: string };
  assert.equal(card.name, 'supplier-qa', 'the store holds the card as served');
  assert.ok((await store.holders(ref)).includes(id), "the store's reference index names the delegation");

  const events = (await ctx.client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const header = events[0]?.workflowExecutionStartedEventAttributes?.header?.fields ?? {};
  assert.deepEqual(Object.keys(header), [], 'no trace header when there is no trace to carry');
  const upserts = events.flatMap((e) => {
    const fields = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    return fields && !('TemporalChangeVersion' in fields) ? [Object.keys(fields).sort()] : [];
  });
  assert.deepEqual(
    upserts,
    [['BatonOutcome', 'BatonRemoteState', 'BatonRemoteTaskId', 'BatonStatus']],
    'agent and tenant are not written again',
  );
}
