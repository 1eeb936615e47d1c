import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findCycle, GraphSpecError, parseGraphSpec } from '../../src/shared/graph-spec';
import { pageOfRecord } from '../../src/shared/graph-page';
import { projectRoot } from '../../src/runtime/project-root';
import { GraphState } from '../../src/shared/graph-state';
import type { DelegationResult } from '../../src/shared/delegation-result';
import { GraphNodeSpecSchema, type GraphSpecInput } from '../../src/shared/graph-types';

const problemsOf = (raw: unknown, agents?: string[]): string[] => {
  try {
    parseGraphSpec(raw, agents);
    return [];
  } catch (err) {
    assert.ok(err instanceof GraphSpecError, String(err));
    return err.problems;
  }
};

const n = (id: string, agent: string, dependsOn: string[] = [], extra: object = {}) => ({
  id,
  agent,
  text: `do ${id}`,
  dependsOn,
  ...extra,
});

describe('graph spec', () => {
  it('refuses cycles, unknown dependencies, unknown agents and duplicates, naming the node', () => {
    assert.deepEqual(problemsOf({ nodes: [n('a', 'x', ['c']), n('b', 'x', ['a']), n('c', 'x', ['b'])] }), [
      'node a: dependency cycle a → c → b → a',
    ]);
    assert.deepEqual(problemsOf({ nodes: [n('a', 'x', ['ghost'])] }), ['node a: depends on unknown node ghost']);
    assert.deepEqual(problemsOf({ nodes: [n('a', 'x', ['a'])] }), ['node a: depends on itself']);
    assert.deepEqual(problemsOf({ nodes: [n('a', 'x'), n('a', 'x')] }), ['node a: the id is used twice']);
    assert.deepEqual(problemsOf({ nodes: [n('a', 'ghost-agent')] }, ['x', 'y']), ['node a: unknown agent ghost-agent (known: x, y)']);
    assert.deepEqual(problemsOf({ nodes: [n('a', 'x', [], { refines: 'zz' })] }), [
      'node a: depends on unknown node zz',
      'node a: refines unknown node zz',
    ]);
  });

  it('names the node in schema errors too', () => {
    assert.deepEqual(problemsOf({ nodes: [{ id: 'hotel', agent: 'x' }] }), ['node hotel: give exactly one of text or parts']);
    assert.deepEqual(problemsOf({ nodes: [n('hotel', 'x', [], { colour: 'red' })] }), ['node hotel: Unrecognized key: "colour"']);
    assert.deepEqual(problemsOf({ nodes: [] }), ['nodes: Too small: expected array to have >=1 items']);
    assert.deepEqual(problemsOf({ nodes: [n('a', 'x')], failurePolicy: 'yolo' }), [
      'failurePolicy: Invalid option: expected one of "fail-fast"|"continue"',
    ]);
    assert.deepEqual(problemsOf('nodes: a'), ['spec: Invalid input: expected object, received string']);
  });

  it('folds refines into dependsOn and applies the defaults', () => {
    const spec = parseGraphSpec({ nodes: [n('a', 'x'), n('b', 'x', [], { refines: 'a' })] });
    assert.deepEqual(spec.nodes[1]?.dependsOn, ['a']);
    assert.equal(spec.failurePolicy, 'continue');
    assert.equal(spec.concurrency, 4);
  });

  it('finds a cycle in any graph that has one, and none in a DAG (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(fc.tuple(fc.nat(11), fc.nat(11)), { maxLength: 30 }), (size, edges) => {
        const ids = Array.from({ length: size }, (_, i) => `n${i}`);
        // Edges from higher to lower index only: a DAG by construction.
        const dag = ids.map((id, i) => ({
          id,
          dependsOn: [...new Set(edges.filter(([a, b]) => a === i && b < i).map(([, b]) => `n${b}`))],
        }));
        assert.equal(findCycle(dag), undefined);
        // One back edge from the lowest node to the highest, over a path through all of them, closes a cycle.
        const chain = ids.map((id, i) => ({ id, dependsOn: i > 0 ? [`n${i - 1}`] : [`n${size - 1}`] }));
        const cycle = findCycle(chain);
        assert.ok(cycle && cycle[0] === cycle[cycle.length - 1] && cycle.length === size + 1);
      }),
      { numRuns: 300 },
    );
  });
});

const accepted = (taskId: string, contextId: string, artifacts: DelegationResult['artifacts'] = []): DelegationResult => ({
  id: 'x',
  outcome: 'ACCEPTED',
  accepted: true,
  reasons: ['ok'],
  remote: { taskId, contextId, state: 'TASK_STATE_COMPLETED' },
  artifacts,
});
const ended = (outcome: DelegationResult['outcome']): DelegationResult => ({
  id: 'x',
  outcome,
  accepted: false,
  reasons: ['no'],
  remote: {},
  artifacts: [],
});
const stateOf = (spec: GraphSpecInput) => new GraphState('g', { spec: parseGraphSpec(spec), tenant: 'acme', owner: 'ops' });
const ids = (nodes: { id: string }[]) => nodes.map((x) => x.id);

describe('GraphState', () => {
  it('starts ready nodes under the concurrency limit, one context opener per agent', () => {
    const s = stateOf({ concurrency: 2, nodes: [n('a1', 'A'), n('a2', 'A'), n('b', 'B'), n('c', 'C')] });
    assert.deepEqual(ids(s.startable()), ['a1', 'b'], 'a2 waits for the context a1 opens; c waits for a slot');
    s.start('a1');
    s.start('b');
    assert.deepEqual(ids(s.startable()), []);
    s.remoteKnown('a1', 'ctx-A');
    assert.deepEqual(s.record.contexts, { A: 'ctx-A' });
    s.nodeSettled('b', accepted('t-b', 'ctx-B'));
    assert.deepEqual(ids(s.startable()), ['a2'], 'the context is known, and a slot is free');
    assert.equal(s.start('a2').contextId, 'ctx-A');
  });

  it('sends dependencies as referenceTaskIds and their artifacts as references', () => {
    const s = stateOf({ nodes: [n('flight', 'air'), n('hotel', 'inn', ['flight'])] });
    s.start('flight');
    s.nodeSettled('flight', accepted('t-f', 'ctx-air', [{ artifactId: 'art-1', name: 'booking', size: 10, sha256: 'ab' }]));
    const req = s.start('hotel');
    assert.deepEqual(req.referenceTaskIds, ['t-f']);
    assert.equal(req.contextId, undefined, 'another agent: its own context');
    assert.deepEqual(req.parts[1]?.data, {
      references: [{ node: 'flight', taskId: 't-f', artifactId: 'art-1', name: 'booking', mediaType: undefined, sha256: 'ab', size: 10 }],
    });
  });

  it('continue: skips dependents transitively, with the reason', () => {
    const s = stateOf({ nodes: [n('a', 'A'), n('b', 'B', ['a']), n('c', 'C', ['b']), n('d', 'D')] });
    s.start('a');
    s.start('d');
    assert.deepEqual(s.nodeSettled('a', ended('REMOTE_REJECTED')), []);
    assert.deepEqual(
      s.record.nodes.map((x) => [x.id, x.status, x.reasons[0]]),
      [
        ['a', 'SETTLED', 'no'],
        ['b', 'SKIPPED', 'depends on a, which ended REMOTE_REJECTED'],
        ['c', 'SKIPPED', 'depends on b, which was skipped'],
        ['d', 'RUNNING', undefined],
      ],
    );
    assert.equal(s.done, false);
    s.nodeSettled('d', accepted('t-d', 'ctx-d'));
    assert.equal(s.done, true);
    assert.equal(s.finish().outcome?.kind, 'FAILED');
  });

  it('fail-fast: returns the running nodes to cancel and skips the pending ones', () => {
    const s = stateOf({ failurePolicy: 'fail-fast', nodes: [n('a', 'A'), n('b', 'B'), n('c', 'C', ['a'])] });
    s.start('a');
    s.start('b');
    assert.deepEqual(s.nodeSettled('a', ended('TIMED_OUT')), ['b']);
    assert.equal(s.record.nodes[2]?.status, 'SKIPPED');
    assert.deepEqual(s.startable(), []);
    assert.deepEqual(s.nodeSettled('b', ended('CANCELED')), [], 'the cancelled node does not trigger it again');
    const done = s.finish();
    assert.equal(done.outcome?.kind, 'FAILED');
    assert.deepEqual(done.cancel, { by: 'fail-fast', reason: 'fail-fast: node a ended TIMED_OUT' });
  });

  it('refuses follow-ups that break the graph, and takes a refinement', () => {
    const s = stateOf({ nodes: [n('pic', 'studio')] });
    const caller = { tenant: 'acme', user: 'u' };
    assert.match(s.refuseFollowUp(parseNode(n('x', 'studio', ['nope'])), caller) ?? '', /depends on unknown node nope/);
    assert.match(s.refuseFollowUp(parseNode(n('x', 'other', [], { refines: 'pic' })), caller) ?? '', /same agent/);
    assert.match(s.refuseFollowUp(parseNode(n('x', 'studio')), { tenant: 'globex', user: 'm' }) ?? '', /no access/);
    assert.equal(s.refuseFollowUp(parseNode(n('red', 'studio', [], { refines: 'pic' })), caller), undefined);
    const added = s.addFollowUp(parseNode(n('red', 'studio', [], { refines: 'pic' })));
    assert.deepEqual(added.dependsOn, ['pic']);
    assert.equal(added.followUp, true);
    s.requestCancel('acme/u', 'enough');
    assert.equal(s.refuseFollowUp(parseNode(n('y', 'studio')), caller), 'the graph is no longer running');
  });

  it('keeps lineage per context and name, marking the newest accepted version', () => {
    const s = stateOf({ nodes: [n('v1', 'studio'), n('v2', 'studio', ['v1']), n('v3', 'studio', ['v2'])] });
    const pic = (id: string) => [{ artifactId: id, name: 'picture', size: 1, sha256: id }];
    s.start('v1');
    s.nodeSettled('v1', accepted('t1', 'ctx', pic('p1')));
    s.start('v2');
    s.nodeSettled('v2', accepted('t2', 'ctx', pic('p2')));
    s.start('v3');
    s.nodeSettled('v3', { ...ended('REJECTED'), remote: { taskId: 't3', contextId: 'ctx' }, artifacts: pic('p3') });
    assert.deepEqual(s.record.lineage, [
      {
        contextId: 'ctx',
        name: 'picture',
        latestAccepted: 'p2',
        versionCount: 3,
        versions: [
          { version: 1, artifactId: 'p1', taskId: 't1', nodeId: 'v1', accepted: true, sha256: 'p1', size: 1 },
          { version: 2, artifactId: 'p2', taskId: 't2', nodeId: 'v2', accepted: true, sha256: 'p2', size: 1 },
          { version: 3, artifactId: 'p3', taskId: 't3', nodeId: 'v3', accepted: false, sha256: 'p3', size: 1 },
        ],
      },
    ]);
  });
});

function parseNode(raw: object) {
  return GraphNodeSpecSchema.parse(raw);
}

describe('GraphState at scale', () => {
  const wide = (size: number, extra: object = {}) =>
    parseGraphSpec({
      concurrency: 1_000,
      nodes: Array.from({ length: size }, (_, i) => n(`n${i}`, 'A', i >= 1_000 ? [`n${i - 1_000}`] : [])),
      ...extra,
    });
  const big = (size: number) => new GraphState('g', { spec: wide(size), tenant: 'acme', owner: 'ops' });

  it('runs 10,000 nodes 1,000 at a time, and carries a compact state across a continue-as-new', () => {
    const s = big(10_000);
    s.remoteKnown('n0', 'ctx');
    let started = 0;
    let carried = 0;
    let state = s;
    for (;;) {
      const ready = state.startable();
      if (!ready.length) break;
      for (const r of ready) state.start(r.id);
      started += ready.length;
      assert.ok(state.runningCount <= 1_000, 'never more than the concurrency');
      for (const r of ready.slice(0, 500))
        state.nodeSettled(r.id, accepted(`t-${r.id}`, 'ctx', [{ artifactId: `a-${r.id}`, name: 'out', size: 1, sha256: 'x' }]));
      // Every few rounds, go on in a "new run" from the carry, with nodes still running.
      const carry = state.carry(4_000);
      assert.ok(carry);
      assert.ok(JSON.stringify(carry).length < 400_000, `the carry stays small (${JSON.stringify(carry).length} chars)`);
      state = new GraphState('g', { spec: wide(10_000), tenant: 'acme', owner: 'ops' }, undefined, carry);
      carried += 1;
      for (const r of state.page({ state: 'RUNNING', limit: 1_000 }).nodes) state.nodeSettled(r.id, accepted(`t-${r.id}`, 'ctx'));
    }
    assert.equal(started, 10_000);
    assert.equal(carried, 10, 'a new run after each round');
    assert.equal(state.done, true);
    assert.equal(state.runs, carried + 1);
    const done = state.finish();
    assert.equal(done.outcome?.kind, 'ACCEPTED');
    assert.deepEqual(done.counts, { ACCEPTED: 10_000 });
    // Bounded lineage: one name in one context, the newest 20 versions of all 10,000... of those that had one.
    assert.equal(done.lineage.length, 1);
    assert.equal(done.lineage[0]?.versions.length, 20);
    assert.ok((done.lineage[0]?.versionCount ?? 0) >= 5_000);
  });

  it('sends a node what its dependency settled with, from a carry', () => {
    const s = stateOf({ nodes: [n('a', 'A'), n('b', 'A', ['a'])] });
    s.start('a');
    s.nodeSettled('a', accepted('t-a', 'ctx', [{ artifactId: 'art', name: 'x', size: 2, sha256: 'ff' }]));
    const next = new GraphState(
      'g',
      { spec: parseGraphSpec({ nodes: [n('a', 'A'), n('b', 'A', ['a'])] }), tenant: 'acme', owner: 'ops' },
      undefined,
      s.carry(10),
    );
    assert.deepEqual(ids(next.startable()), ['b']);
    const req = next.start('b');
    assert.deepEqual(req.referenceTaskIds, ['t-a']);
    assert.equal(req.contextId, 'ctx');
    assert.deepEqual(
      (req.parts[1]?.data as { references: { artifactId: string }[] }).references.map((r) => r.artifactId),
      ['art'],
    );
  });

  it('pages nodes in spec order, filtered by state, whatever the size', () => {
    const s = big(2_500);
    s.remoteKnown('n0', 'ctx');
    for (const r of s.startable()) s.start(r.id);
    s.nodeSettled('n3', ended('REMOTE_FAILED'));
    const page = s.page({ offset: 998, limit: 4 });
    assert.deepEqual(ids(page.nodes), ['n998', 'n999', 'n1000', 'n1001']);
    assert.deepEqual(page.page, { offset: 998, limit: 4, total: 2_500 });
    assert.deepEqual(page.counts, { RUNNING: 999, REMOTE_FAILED: 1, SKIPPED: 2, PENDING: 1_498 }, 'n1003 and n2003 skipped');
    assert.deepEqual(ids(s.page({ state: 'SKIPPED' }).nodes), ['n1003', 'n2003']);
    assert.equal(s.page({ state: 'SKIPPED' }).nodes[1]?.reasons[0], 'depends on n1003, which was skipped');
    assert.equal(s.page({ state: 'SETTLED' }).page.total, 1);
    assert.equal(s.page({ limit: 5_000 }).nodes.length, 1_000, 'a page holds at most 1,000');
    // A query's argument is anyone's: nonsense reads as the defaults.
    assert.equal(s.page({ offset: 'x' as unknown as number, limit: -3 }).page.offset, 0);
    assert.equal(s.page(null as unknown as undefined).nodes.length, 100);
  });

  it('refuses a spec too large to carry, and a follow-up past the limits', () => {
    const huge = { nodes: Array.from({ length: 10 }, (_, i) => ({ id: `n${i}`, agent: 'A', text: 'x'.repeat(100_000) })) };
    assert.match(problemsOf(huge)[0] ?? '', /characters as JSON, over the 1000000 a graph carries/);
    assert.match(problemsOf({ nodes: Array.from({ length: 10_001 }, (_, i) => n(`n${i}`, 'A')) })[0] ?? '', /nodes: Too big/);
    const s = big(10_000);
    assert.match(s.refuseFollowUp(parseNode(n('more', 'A')), { tenant: 'acme', user: 'u' }) ?? '', /10000 nodes, the most one graph holds/);
  });

  it('finds no cycle in a chain of 10,000 (no recursion to overflow)', () => {
    const chain = Array.from({ length: 10_000 }, (_, i) => ({ id: `n${i}`, dependsOn: i ? [`n${i - 1}`] : [] }));
    assert.equal(findCycle(chain), undefined);
    chain[0] = { id: 'n0', dependsOn: ['n9999'] };
    assert.equal(findCycle(chain)?.length, 10_001);
  });
});

describe('a settled graph read as a page', () => {
  it('reads the result a graph returns (every node) as pages', () => {
    // The result of a graph with a follow-up, as the oldest release in the support window recorded it.
    const history = JSON.parse(
      readFileSync(join(projectRoot(), 'test', 'replay', 'histories', '0.9.0-36-graph-follow-up.json'), 'utf8'),
    ) as {
      events: { workflowExecutionCompletedEventAttributes?: { result: { payloads: { data: string }[] } } }[];
    };
    const payload = history.events.at(-1)?.workflowExecutionCompletedEventAttributes?.result.payloads[0]?.data ?? '';
    const stored = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as Parameters<typeof pageOfRecord>[0];
    const page = pageOfRecord(stored, { limit: 1 });
    assert.equal(page.size, 2);
    assert.deepEqual(page.counts, { ACCEPTED: 2 });
    assert.deepEqual(page.page, { offset: 0, limit: 1, total: 2 });
    assert.deepEqual(Object.keys(page.nodes[0] ?? {}).sort(), [
      'agent',
      'delegationId',
      'dependsOn',
      'id',
      'outcome',
      'reasons',
      'remote',
      'status',
    ]);
    assert.equal(page.nodes[0]?.remote.taskId, stored.nodes[0]?.remote.taskId, 'the remote task is kept, the artifacts are not');
    assert.equal(page.runs, 1);
    assert.deepEqual(
      page.lineage[0]?.versions.map((v) => v.version),
      [1, 2],
    );
    assert.equal(page.lineage[0]?.versionCount, 2);
    assert.deepEqual(
      pageOfRecord(stored, { state: 'ACCEPTED', offset: 1 }).nodes.map((n) => [n.id, n.followUp]),
      [['red-boat', true]],
    );
  });
});
