import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../src/config/load';
import { clearedFor, dataUseRules } from '../../src/config/data-use-rules';
import type { Part } from '../../src/shared/a2a-types';
import {
  conveyanceOf,
  DATA_USE_EXTENSION,
  refuseAnswerData,
  refuseData,
  refuseDataUseShape,
  refuseForward,
  refuseInherited,
  withDataUse,
  withEffectiveLabels,
  withoutDataUse,
  type DataUseRules,
} from '../../src/shared/data-use';
import { DataTermsSchema } from '../../src/shared/data-use-types';
import { graphCarriesDataUse, graphLabels, refuseGraphData } from '../../src/shared/graph-data-use';

const labelled = (text: string, use: unknown): Part => ({ text, metadata: { [DATA_USE_EXTENSION]: use } });
const rules: DataUseRules = {
  labels: ['public', 'internal', 'confidential', 'personal'],
  open: 'public',
  agents: [
    { name: 'skyway-air', card: 'http://127.0.0.1:1/.well-known/agent-card.json' },
    { name: 'supplier-qa', card: 'http://127.0.0.1:2/.well-known/agent-card.json' },
  ],
};

describe('data labels and clearance (refuseData)', () => {
  it('sends unlabelled data to any agent by default, as before labels existed', () => {
    assert.equal(refuseData([{ text: 'hi' }, { data: { a: 1 } }], 'skyway-air', ['public'], rules), undefined);
  });

  it('refuses a label the agent is not cleared for, naming the part, the label and the entry', () => {
    const why = refuseData([{ text: 'a' }, labelled('b', { label: 'confidential' })], 'skyway-air', ['public', 'internal'], rules);
    assert.equal(
      why,
      'part 2 is labelled confidential, and agent skyway-air is cleared only for public, internal (agents.skyway-air.clearance); nothing was sent',
    );
    assert.equal(refuseData([labelled('b', { label: 'internal' })], 'skyway-air', ['public', 'internal'], rules), undefined);
  });

  it('counts an unlabelled part as dataUse.unlabelled when the config sets it', () => {
    const strict = { ...rules, unlabelled: 'internal' };
    assert.match(
      refuseData([{ text: 'a' }], 'skyway-air', ['public'], strict) ?? '',
      /part 1 is labelled internal \(dataUse\.unlabelled\)/,
    );
    assert.equal(refuseData([labelled('a', { label: 'public' })], 'skyway-air', ['public'], strict), undefined);
  });

  it('refuses a label that is not one of dataUse.labels', () => {
    assert.match(
      refuseData([labelled('a', { label: 'secret' })], 'skyway-air', ['public'], rules) ?? '',
      /^part 1 is labelled secret, which is not one of dataUse\.labels \(public, internal, confidential, personal\)/,
    );
  });

  it('refuses malformed data-use metadata and terms, saying which field', () => {
    assert.match(refuseDataUseShape([labelled('a', 'confidential')]) ?? '', /^part 1's data-use metadata is malformed/);
    assert.match(refuseDataUseShape([labelled('a', { label: 'Not A Label' })]) ?? '', /label: must be a label name/);
    assert.match(refuseDataUseShape([labelled('a', { terms: { forwarding: 'sometimes' } })]) ?? '', /terms\.forwarding/);
    assert.match(refuseDataUseShape([labelled('a', { terms: { forwarding: 'listed-agents' } })]) ?? '', /needs the agents it lists/);
    assert.match(refuseDataUseShape([labelled('a', { terms: { agents: ['x'] } })]) ?? '', /only with forwarding: listed-agents/);
    assert.match(refuseDataUseShape([labelled('a', { label: 'public', colour: 'red' })]) ?? '', /malformed/);
    assert.equal(refuseDataUseShape([{ text: 'a', metadata: { other: 1 } }]), undefined, 'other metadata is not ours to check');
  });

  it('refuses a forwarding rule that names an agent the registry lacks; a name or a card URL is known', () => {
    const to = (agents: string[]) => labelled('a', { label: 'public', terms: { forwarding: 'listed-agents', agents } });
    assert.match(refuseData([to(['nobody'])], 'skyway-air', ['public'], rules) ?? '', /go to nobody, which is no agent in the registry/);
    assert.equal(
      refuseData([to(['supplier-qa', 'http://127.0.0.1:1/.well-known/agent-card.json'])], 'skyway-air', ['public'], rules),
      undefined,
    );
  });

  it('takes terms with every field, and refuses a bad retention or action name', () => {
    const terms = { purpose: 'fare audit', retention: '30d', forwarding: 'none', actions: ['summarize'] };
    assert.equal(DataTermsSchema.safeParse(terms).success, true);
    assert.equal(DataTermsSchema.safeParse({ retention: 'a month' }).success, false);
    assert.equal(DataTermsSchema.safeParse({ actions: ['Do Anything'] }).success, false);
  });
});

describe('carrying data use on parts', () => {
  it('puts a request-wide label on every part without its own; a part keeps its own', () => {
    const parts = withDataUse([{ text: 'a' }, labelled('b', { label: 'personal' })], { label: 'internal', terms: { forwarding: 'none' } });
    assert.deepEqual(parts[0]?.metadata?.[DATA_USE_EXTENSION], { label: 'internal', terms: { forwarding: 'none' } });
    assert.deepEqual(parts[1]?.metadata?.[DATA_USE_EXTENSION], { label: 'personal', terms: { forwarding: 'none' } });
  });

  it("takes Baton's metadata off what an agent is sent, and nothing else", () => {
    const parts: Part[] = [
      { text: 'a', metadata: { [DATA_USE_EXTENSION]: { label: 'internal' }, kept: 1 } },
      labelled('b', { label: 'public' }),
      { text: 'c' },
    ];
    assert.deepEqual(withoutDataUse(parts), [{ text: 'a', metadata: { kept: 1 } }, { text: 'b' }, { text: 'c' }]);
    const plain: Part[] = [{ text: 'x' }];
    assert.equal(withoutDataUse(plain), plain, 'parts without it are passed as they are');
  });
});

describe('an answer checked in the workflow (refuseAnswerData)', () => {
  it('checks against what the resolve step recorded, and only public when it recorded nothing', () => {
    assert.match(refuseAnswerData([labelled('a', { label: 'internal' })], 'skyway-air', undefined) ?? '', /cleared only for public/);
    assert.equal(refuseAnswerData([labelled('a', { label: 'internal' })], 'skyway-air', { cleared: ['public', 'internal'] }), undefined);
    assert.match(
      refuseAnswerData([{ text: 'a' }], 'skyway-air', { cleared: ['public'], unlabelled: 'personal' }) ?? '',
      /labelled personal/,
    );
    assert.match(refuseAnswerData([labelled('a', 7)], 'skyway-air', undefined) ?? '', /malformed/);
  });
});

describe('config: dataUse and clearance', () => {
  const agent = { card: 'http://127.0.0.1:1/', allowHttp: true, allowPrivateNetwork: true };
  it('defaults to four labels, public open, unlabelled free; an entry adds its clearance', () => {
    const config = parseConfig({ agents: { a: agent, b: { ...agent, clearance: ['internal', 'personal'] } } });
    assert.deepEqual(dataUseRules(config).labels, ['public', 'internal', 'confidential', 'personal']);
    assert.equal(dataUseRules(config).unlabelled, undefined);
    assert.deepEqual(clearedFor(config, 'a'), ['public']);
    assert.deepEqual(clearedFor(config, 'b'), ['public', 'internal', 'personal']);
    assert.equal(clearedFor(config, 'c'), undefined);
  });

  it('refuses a clearance, an open or an unlabelled label that is not one of the labels', () => {
    assert.throws(
      () => parseConfig({ agents: { a: { ...agent, clearance: ['secret'] } } }),
      /agents\.a\.clearance\.0.*secret is not one of dataUse\.labels/s,
    );
    assert.throws(() => parseConfig({ dataUse: { labels: ['open', 'closed'] } }), /dataUse\.open.*must be one of dataUse\.labels/s);
    assert.throws(() => parseConfig({ dataUse: { unlabelled: 'internal', labels: ['public'] } }), /dataUse\.unlabelled/);
    assert.throws(() => parseConfig({ dataUse: { labels: ['public', 'public'] } }), /lists a label twice/);
  });
});

describe('conveying terms (conveyanceOf)', () => {
  const byDefault = { convey: 'if-declared', whenUndeclared: 'refuse' } as const;
  it('has nothing to convey for a turn without data use', () => {
    assert.deepEqual(conveyanceOf([{ text: 'a' }], 'x', false, byDefault, rules), {});
  });
  it('conveys to a card that declares the extension, or to any with convey: always', () => {
    const parts = [labelled('a', { label: 'internal' }), labelled('b', { label: 'internal' })];
    assert.deepEqual(conveyanceOf(parts, 'x', true, byDefault, rules), { conveyance: { labels: ['internal'], conveyed: true } });
    assert.deepEqual(conveyanceOf(parts, 'x', false, { ...byDefault, convey: 'always' }, rules), {
      conveyance: { labels: ['internal'], conveyed: true },
    });
  });
  it('refuses data above the open label for a card without it, unless the entry sends it without terms', () => {
    const parts = [labelled('a', { label: 'public' }), labelled('b', { label: 'personal' })];
    assert.match(
      (conveyanceOf(parts, 'x', false, byDefault, rules) as { refused: string }).refused,
      /^part 2 is labelled personal, and agent x's card does not declare the data-use extension \(urn:baton-a2a:data-use:v1\)/,
    );
    assert.deepEqual(conveyanceOf(parts, 'x', false, { ...byDefault, whenUndeclared: 'send-without-terms' }, rules), {
      conveyance: { labels: ['public', 'personal'], conveyed: false },
    });
    assert.deepEqual(conveyanceOf([labelled('a', { label: 'public' })], 'x', false, byDefault, rules), {
      conveyance: { labels: ['public'], conveyed: false },
    });
  });
  it('counts and conveys an unlabelled part as dataUse.unlabelled when the config sets it', () => {
    const strict = { ...rules, unlabelled: 'internal' };
    assert.ok('refused' in conveyanceOf([{ text: 'a' }], 'x', false, byDefault, strict));
    assert.deepEqual(withEffectiveLabels([{ text: 'a' }, labelled('b', { label: 'public' })], 'internal'), [
      { text: 'a', metadata: { [DATA_USE_EXTENSION]: { label: 'internal' } } },
      labelled('b', { label: 'public' }),
    ]);
  });
});

describe('a served service honours a caller’s terms (refuseForward)', () => {
  const desk = { name: 'skyway-air', card: 'http://127.0.0.1:1/.well-known/agent-card.json', cleared: ['public', 'internal'] };
  const terms = (t: unknown, label = 'internal') => [labelled('a', { label, terms: t })];
  it('takes data its terms let go to the service’s agents, each cleared for its label', () => {
    assert.equal(refuseForward([{ text: 'a' }], 'gw', [desk], rules), undefined);
    assert.equal(refuseForward(terms({ forwarding: 'any' }), 'gw', [desk], rules), undefined);
    assert.equal(refuseForward(terms({ forwarding: 'listed-agents', agents: [desk.card] }), 'gw', [desk], rules), undefined);
  });
  it('names the rule a refusal breaks', () => {
    const rule = (r: ReturnType<typeof refuseForward>) => r?.rule;
    assert.equal(rule(refuseForward(terms({ forwarding: 'none' }), 'gw', [desk], rules)), 'forwarding');
    assert.equal(rule(refuseForward(terms({ forwarding: 'listed-agents', agents: ['supplier-qa'] }), 'gw', [desk], rules)), 'forwarding');
    assert.equal(rule(refuseForward(terms({ forwarding: 'listed-agents', agents: ['nobody'] }), 'gw', [desk], rules)), 'unknown-agent');
    assert.equal(rule(refuseForward(terms(undefined, 'personal'), 'gw', [desk], rules)), 'clearance');
    assert.equal(rule(refuseForward(terms(undefined, 'secret'), 'gw', [desk], rules)), 'label');
    assert.equal(rule(refuseForward([labelled('a', { label: 7 })], 'gw', [desk], rules)), 'malformed');
  });
  it('refuses restrictive terms to a service that does not say where its data goes, and takes the rest', () => {
    assert.match(
      refuseForward(terms({ forwarding: 'none' }), 'app', undefined, rules)?.reason ?? '',
      /does not declare the agents it passes data to \(serve\.services\.app\.dataUse\.forwardsTo\)/,
    );
    assert.equal(refuseForward(terms({ forwarding: 'any' }), 'app', undefined, rules), undefined);
  });
});

describe('labels across a graph (graphLabels, refuseGraphData)', () => {
  const node = (id: string, agent: string, opts: { label?: string; dependsOn?: string[]; refines?: string } = {}) => ({
    id,
    agent,
    ...(opts.label ? { parts: [labelled(id, { label: opts.label })] } : { text: id }),
    dependsOn: opts.dependsOn ?? [],
    ...(opts.refines ? { refines: opts.refines } : {}),
  });
  const nodes = [
    node('a', 'ledger', { label: 'confidential' }),
    node('b', 'ledger', { dependsOn: ['a'] }),
    node('c', 'press', { dependsOn: ['b'] }),
    node('d', 'press', { label: 'public' }),
  ];
  it('inherits what every node upstream had, transitively, naming the node it came from', () => {
    const labels = graphLabels(nodes);
    assert.deepEqual(labels.get('c'), { own: [], inherited: [{ label: 'confidential', from: 'a' }] });
    assert.deepEqual(labels.get('d'), { own: ['public'], inherited: [] });
    assert.deepEqual(graphLabels([node('a', 'x', { label: 'internal' }), node('r', 'x', { refines: 'a' })]).get('r')?.inherited, [
      { label: 'internal', from: 'a' },
    ]);
    assert.deepEqual(graphLabels(nodes, 'internal').get('b')?.own, ['internal'], 'an unlabelled request counts as dataUse.unlabelled');
  });
  it('refuses the edge that carries data to an agent not cleared for it, and a node whose own request is not cleared', () => {
    const clearance = {
      labels: ['public', 'internal', 'confidential'],
      cleared: { ledger: ['public', 'confidential'], press: ['public'] },
    };
    assert.deepEqual(refuseGraphData(nodes, nodes, clearance), [
      'edge a → c carries data labelled confidential to agent press, which is cleared only for public (agents.press.clearance)',
    ]);
    assert.deepEqual(refuseGraphData([node('e', 'press', { label: 'internal' })], nodes, clearance), [
      'node e: its request is labelled internal, and agent press is cleared only for public (agents.press.clearance)',
    ]);
    assert.match(
      refuseGraphData([node('f', 'press', { label: 'secret' })], nodes, clearance)[0] ?? '',
      /label.*secret, which is not one of dataUse\.labels/,
    );
    assert.equal(graphCarriesDataUse([node('g', 'x')]), false);
    assert.equal(graphCarriesDataUse(nodes), true);
  });
  it('checks a node’s inherited labels at the worker too (refuseInherited)', () => {
    assert.equal(refuseInherited([{ label: 'internal', from: 'a' }], 'x', ['public', 'internal']), undefined);
    assert.match(
      refuseInherited([{ label: 'personal', from: 'a' }], 'x', ['public']) ?? '',
      /inherits data labelled personal from node a, and agent x is cleared only for public/,
    );
  });
});
