/**
 * Data labels and agent clearance (docs/data-use.md) on a real worker and a real A2A agent: data an
 * agent is not cleared for is refused before anything reaches it, and Baton's data-use metadata never
 * reaches an agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash, randomUUID } from 'node:crypto';
import { DelegationNotFoundError, InvalidRequestError, RequestRefusedError } from '../../src/client/baton-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { DATA_USE_EXTENSION } from '../../src/shared/data-use';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { batonFor, loopbackAgent, withWorker, type TestWorkerContext } from '../helpers/temporal';
import { GraphClient } from '../../src/client/graph-client';
import { recordingDesk, type Received } from '../helpers/recording-desk';

const labelled = (text: string, label: string) => ({ text, metadata: { [DATA_USE_EXTENSION]: { label }, note: 'kept' } });

describe('data labels and agent clearance', () => {
  const received: Received[] = [];
  let agent: RunningAgent;
  let declaring: RunningAgent;
  before(async () => {
    agent = await startAgentServer(recordingDesk(received));
    declaring = await startAgentServer(recordingDesk(received, true));
  });
  after(async () => {
    await agent.close();
    await declaring.close();
  });
  const sentTexts = () => received.flatMap((m) => m.parts.map((p) => p.text));
  const got = (text: string) => received.find((m) => m.parts[0]?.text === text);
  const agents = () => ({
    'open-desk': loopbackAgent(agent.url, { acceptance: 'accept-any' }),
    // Its card does not declare the extension: labelled data goes without its terms.
    'cleared-desk': loopbackAgent(agent.url, {
      acceptance: 'accept-any',
      clearance: ['internal', 'confidential'],
      dataUse: { whenUndeclared: 'send-without-terms' },
    }),
    // Nor does this one's, and its entry keeps the default: labelled data above public is refused.
    'strict-desk': loopbackAgent(agent.url, { acceptance: 'accept-any', clearance: ['internal'] }),
    // Its entry sends the terms whatever the card says.
    'always-desk': loopbackAgent(agent.url, { acceptance: 'accept-any', clearance: ['internal'], dataUse: { convey: 'always' } }),
    'declaring-desk': loopbackAgent(declaring.url, { acceptance: 'accept-any', clearance: ['confidential'] }),
    'declaring-desk-rest': loopbackAgent(declaring.url, { acceptance: 'accept-any', clearance: ['confidential'], binding: 'HTTP+JSON' }),
  });

  it('refuses data above the agent clearance before anything is sent; sends what it is cleared for without the labels', async () => {
    await withWorker(agents(), async (ctx) => {
      const baton = batonFor(ctx);
      const refused = await baton.start({ agent: 'open-desk', parts: [{ text: 'Q3 margins' }], dataUse: { label: 'confidential' } });
      const record = await baton.result(refused);
      assert.equal(record.outcome?.kind, 'ERROR');
      assert.deepEqual(record.outcome?.reasons, [
        'DataRefused: part 1 is labelled confidential, and agent open-desk is cleared only for public (agents.open-desk.clearance); nothing was sent',
      ]);
      assert.equal(record.remote.taskId, undefined, 'no remote task');
      assert.ok(!sentTexts().includes('Q3 margins'), 'the agent was sent nothing');

      // A part's own label counts: the second part is refused, and so is the whole turn.
      const mixed = await baton.start({ agent: 'cleared-desk', parts: [{ text: 'plan' }, labelled('salaries', 'personal')] });
      assert.match(
        (await baton.result(mixed)).outcome?.reasons[0] ?? '',
        /^DataRefused: part 2 is labelled personal, and agent cleared-desk is cleared only for public, internal, confidential/,
      );
      assert.ok(!sentTexts().includes('salaries') && !sentTexts().includes('plan'));

      const cleared = await baton.start({
        agent: 'cleared-desk',
        parts: [labelled('Q3 margins, cleared', 'confidential'), { text: 'unlabelled' }],
        dataUse: { label: 'internal', terms: { purpose: 'board pack', forwarding: 'none' } },
      });
      const done = await baton.result(cleared);
      assert.equal(done.outcome?.kind, 'ACCEPTED');
      const sent = got('Q3 margins, cleared');
      assert.ok(sent, 'the agent got the turn');
      assert.deepEqual(sent.parts[0]?.metadata, { note: 'kept' }, "Baton's data-use metadata is taken off, the rest kept");
      assert.equal(sent.parts[1]?.metadata, undefined);
      assert.deepEqual([sent.extensions ?? [], sent.header], [[], []], 'no extension named or asked for');
      assert.deepEqual(
        done.turns[0]?.dataUse,
        { labels: ['confidential', 'internal'], conveyed: false },
        'the record says the terms did not go',
      );
    });
  });

  it('sends the terms as a declared extension: to a card that declares it, or where the entry says always', async () => {
    await withWorker(agents(), async (ctx) => {
      const baton = batonFor(ctx);
      const terms = { purpose: 'board pack', retention: '30d', forwarding: 'none' as const };
      for (const [entry, text] of [
        ['declaring-desk', 'margins over JSON-RPC'],
        ['declaring-desk-rest', 'margins over HTTP+JSON'],
      ] as const) {
        const id = await baton.start({ agent: entry, parts: [{ text }], dataUse: { label: 'confidential', terms } });
        const record = await baton.result(id);
        assert.equal(record.outcome?.kind, 'ACCEPTED');
        const sent = got(text);
        assert.deepEqual(
          sent?.parts[0]?.metadata,
          { [DATA_USE_EXTENSION]: { label: 'confidential', terms } },
          `${entry}: the terms went with the part`,
        );
        assert.deepEqual(sent?.extensions, [DATA_USE_EXTENSION], `${entry}: the message names the extension`);
        assert.deepEqual(sent?.header, [DATA_USE_EXTENSION], `${entry}: the call asks for it in A2A-Extensions`);
        assert.deepEqual(
          record.turns[0]?.dataUse,
          { labels: ['confidential'], conveyed: true, acknowledged: true },
          `${entry}: acknowledged`,
        );
        assert.deepEqual(
          record.artifacts[0]?.parts?.[1]?.data,
          { received: [{ label: 'confidential', terms }] },
          `${entry}: the agent echoes what it got`,
        );
      }

      // A card without the extension: refused above public by default; public goes without terms.
      const strict = await baton.start({ agent: 'strict-desk', parts: [{ text: 'cost centres' }], dataUse: { label: 'internal' } });
      assert.equal(
        (await baton.result(strict)).outcome?.reasons[0],
        `DataRefused: part 1 is labelled internal, and agent strict-desk's card does not declare the data-use extension (${DATA_USE_EXTENSION}) to take its terms (agents.strict-desk.dataUse.whenUndeclared: refuse); nothing was sent`,
      );
      assert.ok(!sentTexts().includes('cost centres'));
      const open = await baton.start({ agent: 'strict-desk', parts: [{ text: 'the canteen menu' }], dataUse: { label: 'public', terms } });
      const openRecord = await baton.result(open);
      assert.equal(openRecord.outcome?.kind, 'ACCEPTED');
      assert.equal(got('the canteen menu')?.parts[0]?.metadata, undefined);
      assert.deepEqual(openRecord.turns[0]?.dataUse, { labels: ['public'], conveyed: false });

      // `convey: always`: the terms go to a card that does not declare the extension; it does not acknowledge them.
      const always = await baton.start({ agent: 'always-desk', parts: [{ text: 'rota' }], dataUse: { label: 'internal' } });
      const alwaysRecord = await baton.result(always);
      assert.deepEqual(got('rota')?.parts[0]?.metadata, { [DATA_USE_EXTENSION]: { label: 'internal' } });
      assert.deepEqual(alwaysRecord.turns[0]?.dataUse, { labels: ['internal'], conveyed: true, acknowledged: false });
    });
  });

  it('refuses an answer the agent is not cleared for, and the delegation goes on waiting for a good one', async () => {
    await withWorker(agents(), async (ctx) => {
      const baton = batonFor(ctx);
      const id = await baton.start({ agent: 'cleared-desk', parts: [{ text: 'ask me' }] });
      const waiting = await baton.until(id, (r: DelegationRecord) => r.status === 'WAITING_INPUT', 20);
      const requestId = waiting.pending?.requestId ?? '';
      const before = received.length;
      await assert.rejects(
        baton.answer(id, requestId, [labelled('the payroll code', 'personal')]),
        (err: Error) =>
          err instanceof RequestRefusedError &&
          /part 1 is labelled personal, and agent cleared-desk is cleared only for public, internal, confidential/.test(err.message),
      );
      assert.equal(received.length, before, 'nothing was sent');
      assert.equal((await baton.show(id)).pending?.requestId, requestId, 'still waiting for the same request');
      // Another user of the tenant answers: the record and the audit trail say who.
      const answer = [labelled('CC-104', 'internal')];
      await batonFor(ctx, 'acme', 'ops-2').answer(id, requestId, answer);
      const record = await baton.result(id);
      assert.equal(record.outcome?.kind, 'ACCEPTED');
      assert.deepEqual(received.at(-1)?.parts, [{ text: 'CC-104', metadata: { note: 'kept' } }]);
      assert.deepEqual(
        record.turns.map((t) => t.by),
        [undefined, 'acme/ops-2'],
      );

      // The audit trail, from the history: who sent what to whom, with digests.
      const trail = await baton.audit(id);
      const sha = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex');
      assert.deepEqual(trail.principals, {
        user: 'user acme/ops-1',
        service: 'Baton for tenant acme',
        agent: `agent cleared-desk (card sha256 ${record.agent.cardSha256?.slice(0, 16)}…)`,
      });
      assert.deepEqual(
        trail.entries.map((e) => [e.kind, e.from, e.to]),
        [
          ['request', 'user acme/ops-1', trail.principals.agent],
          ['answer', 'user acme/ops-2', trail.principals.agent],
          ['artifact', trail.principals.agent, 'user acme/ops-1'],
          ['outcome', 'Baton for tenant acme', 'user acme/ops-1'],
        ],
      );
      assert.equal(trail.entries[0]?.sha256, sha([{ text: 'ask me' }]), 'the request, as the history holds it');
      assert.equal(trail.entries[1]?.sha256, sha(answer));
      assert.deepEqual(trail.entries[1]?.dataUse, { labels: ['internal'], conveyed: false });
      assert.equal(trail.entries[2]?.sha256, record.artifacts[0]?.sha256);
      await assert.rejects(batonFor(ctx, 'globex', 'ops-1').audit(id), DelegationNotFoundError, "another tenant's is not found");
    });
  });

  it('refuses unknown labels and forwarding rules naming unknown agents at the worker, malformed terms at the client', async () => {
    await withWorker(agents(), async (ctx) => {
      const baton = batonFor(ctx);
      const unknown = await baton.start({ agent: 'cleared-desk', parts: [{ text: 'secret plan' }], dataUse: { label: 'secret' } });
      assert.match(
        (await baton.result(unknown)).outcome?.reasons[0] ?? '',
        /^DataRefused: part 1 is labelled secret, which is not one of dataUse\.labels/,
      );
      const forward = await baton.start({
        agent: 'cleared-desk',
        parts: [{ text: 'pass it on' }],
        dataUse: { label: 'internal', terms: { forwarding: 'listed-agents', agents: ['open-desk', 'nobody'] } },
      });
      assert.match((await baton.result(forward)).outcome?.reasons[0] ?? '', /terms let it go to nobody, which is no agent in the registry/);
      assert.ok(!sentTexts().includes('secret plan') && !sentTexts().includes('pass it on'));

      const ids = [`bad-terms-${randomUUID()}`, `bad-label-${randomUUID()}`];
      await assert.rejects(
        baton.start({
          id: ids[0],
          agent: 'cleared-desk',
          parts: [{ text: 'x' }],
          dataUse: { terms: { forwarding: 'listed-agents' } } as never,
        }),
        (err: Error) => err instanceof InvalidRequestError && /forwarding: listed-agents needs the agents it lists/.test(err.message),
      );
      await assert.rejects(
        baton.start({
          id: ids[1],
          agent: 'cleared-desk',
          parts: [{ text: 'x', metadata: { [DATA_USE_EXTENSION]: { label: 'Top Secret' } } }],
        }),
        (err: Error) =>
          err instanceof InvalidRequestError && /^part 1's data-use metadata is malformed \(label: must be a label name/.test(err.message),
      );
      for (const id of ids) await assert.rejects(baton.show(`acme:${id}`), DelegationNotFoundError, 'nothing was started');
    });
  });
  it('a graph node inherits the labels of the nodes it depends on; an edge to an uncleared agent is refused', async () => {
    const graphsFor = (ctx: TestWorkerContext) =>
      new GraphClient(ctx.client.connection, {
        namespace: ctx.client.options.namespace,
        taskQueue: ctx.taskQueue,
        caller: { tenant: 'acme', user: 'ops-1' },
      });
    await withWorker(agents(), async (ctx) => {
      const graphs = graphsFor(ctx);
      const baton = batonFor(ctx);
      const refused = await graphs.start({
        nodes: [
          { id: 'a', agent: 'cleared-desk', parts: [labelled('the ledger', 'confidential')] },
          { id: 'b', agent: 'open-desk', text: 'Summarize the ledger for the newsletter', dependsOn: ['a'] },
        ],
      });
      await assert.rejects(graphs.result(refused), (err: Error & { cause?: Error }) =>
        /^the graph spec is not valid: edge a → b carries data labelled confidential to agent open-desk, which is cleared only for public \(agents\.open-desk\.clearance\)$/.test(
          err.cause?.message ?? '',
        ),
      );
      assert.ok(!sentTexts().includes('the ledger'), 'no node ran');

      const id = await graphs.start({
        nodes: [
          { id: 'a', agent: 'cleared-desk', parts: [labelled('the rota', 'internal')] },
          { id: 'b', agent: 'cleared-desk', text: 'Who is on call?', dependsOn: ['a'] },
        ],
      });
      assert.equal((await graphs.result(id)).outcome?.kind, 'ACCEPTED');
      const b = await baton.show(`${id}/b`);
      assert.deepEqual(b.turns[0]?.dataUse, { labels: ['internal'], conveyed: false }, "b's request inherits a's label");

      const open = await graphs.start({
        nodes: [
          { id: 'a', agent: 'cleared-desk', parts: [labelled('held', 'internal')] },
          // b asks a question and waits: the graph is still running when the follow-up comes.
          { id: 'b', agent: 'cleared-desk', text: 'ask who is on call', dependsOn: ['a'] },
        ],
      });
      await assert.rejects(
        graphs.addFollowUp(open, { id: 'c', agent: 'open-desk', text: 'Post it', dependsOn: ['a'] }),
        /edge a → c carries data labelled internal to agent open-desk, which is cleared only for public/,
      );
      await graphs.cancel(open, 'the test is done');
    });
  });
});
