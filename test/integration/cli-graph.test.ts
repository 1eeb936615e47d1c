/**
 * `baton graph run|show|add` from the command line, with the example spec files, against a worker
 * on a task queue of the test's own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { SAILBOAT, TRIP_TO_HELSINKI } from '../../src/demo/graph-specs';
import { arcticTours, harborHotel, imageStudio, skywayAir } from '../../src/demo/trip-agents';
import { supplierQa } from '../../src/demo/supplier-qa';
import { GraphClient } from '../../src/client/graph-client';
import { parseGraphSpec } from '../../src/shared/graph-spec';
import type { GraphRecord } from '../../src/shared/graph-types';
import { projectRoot } from '../../src/runtime/project-root';
import { runCli, userEnv } from '../../infra/cli-process';
import { loopbackAgent, testServer, withWorker } from '../helpers/temporal';

const example = (name: string) => join(projectRoot(), 'examples', 'graphs', name);

describe('baton graph', () => {
  const agents: RunningAgent[] = [];
  // The first sailboat is held until the follow-up was added, so the graph is surely still running.
  let releaseSailboat: () => void = () => {};
  const sailboatHeld = new Promise<void>((r) => (releaseSailboat = r));
  const hold = (text: string): Promise<void> => (/calm sea/.test(text) ? sailboatHeld : Promise.resolve());
  before(async () => {
    for (const def of [
      skywayAir({ workMs: 50 }),
      harborHotel({ workMs: 200 }),
      arcticTours({ workMs: 200 }),
      imageStudio({ workMs: 200, hold }),
    ])
      agents.push(await startAgentServer(def));
  });
  after(async () => {
    for (const a of agents) await a.close();
  });

  it('keeps the example spec files equal to the demos', () => {
    assert.deepEqual(parseGraphSpec(parseYaml(readFileSync(example('trip-helsinki.yaml'), 'utf8'))), parseGraphSpec(TRIP_TO_HELSINKI));
    assert.deepEqual(parseGraphSpec(parseYaml(readFileSync(example('sailboat.yaml'), 'utf8'))), parseGraphSpec(SAILBOAT));
  });

  it('runs the trip, prints the DAG, adds a follow-up to a running graph, and refuses bad specs by node', async () => {
    await withWorker(Object.fromEntries(agents.map((a) => [a.name, loopbackAgent(a.url)])), async (ctx) => {
      const { address } = await testServer();
      const dir = mkdtempSync(join(tmpdir(), 'baton-graph-'));
      const config = join(dir, 'baton.config.yaml');
      writeFileSync(config, `temporal: { address: "${address}", taskQueue: "${ctx.taskQueue}" }\ncaller: { tenant: acme, user: ops-1 }\n`);
      const env = userEnv({ BATON_CONFIG: config });

      const trip = await runCli(['graph', 'run', example('trip-helsinki.yaml'), '--json'], env);
      assert.equal(trip.code, 0, trip.stderr);
      const g = JSON.parse(trip.stdout) as GraphRecord;
      assert.equal(g.outcome?.kind, 'ACCEPTED');
      assert.match(trip.stderr, /4\/4 done/, 'progress lines on stderr');

      const shown = await runCli(['graph', 'show', g.id], env);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /^ {2}flight +ACCEPTED +skyway-air /m);
      assert.match(shown.stdout, /^ {4}hotel +ACCEPTED +harbor-hotel +after flight/m);
      assert.match(shown.stdout, /^ {4}snowmobile +ACCEPTED +arctic-tours +after flight/m);
      assert.match(shown.stdout, /^ {6}spa +ACCEPTED +harbor-hotel +after hotel/m);
      assert.match(shown.stdout, /^ {2}booking +v2 of 2 .* node spa /m, 'the latest accepted booking in the hotel context');
      assert.match(shown.stdout, /^progress +4 ACCEPTED of 4 node\(s\)$/m);
      // A page of one state, and the lines that say where the next page starts.
      const page = await runCli(['graph', 'show', g.id, '--state', 'accepted', '--limit', '2'], env);
      assert.equal(page.code, 0, page.stderr);
      assert.match(page.stdout, /^nodes +1–2 of 4 ACCEPTED \(next: --offset 2\)$/m);
      assert.equal((await runCli(['graph', 'show', g.id, '--state', 'sideways'], env)).code, 2);
      const foreign = await runCli(['graph', 'show', g.id], { ...env, BATON_TENANT: 'globex' });
      assert.equal(foreign.code, 1);
      assert.match(foreign.stderr, /no graph with id/);
      // Listed for its tenant, once settled (visibility is eventually consistent: asked again, bounded).
      let listed: { id: string; status: string }[] = [];
      for (let i = 0; i < 100 && !listed.some((r) => r.id === g.id); i++)
        listed = JSON.parse((await runCli(['graph', 'ls', '--status', 'settled', '--json'], env)).stdout) as typeof listed;
      assert.equal(listed.find((r) => r.id === g.id)?.status, 'SETTLED');
      assert.deepEqual(JSON.parse((await runCli(['graph', 'ls', '--json'], { ...env, BATON_TENANT: 'globex' })).stdout), []);

      const started = await runCli(['graph', 'run', example('sailboat.yaml'), '--detach', '--json'], env);
      assert.equal(started.code, 0, started.stderr);
      const { id } = JSON.parse(started.stdout) as { id: string };
      const added = await runCli(
        [
          'graph',
          'add',
          id,
          '--node',
          'red-boat',
          '--agent',
          'image-studio',
          '--text',
          'Make the boat red.',
          '--refines',
          'sailboat',
          '--json',
        ],
        env,
      );
      assert.equal(added.code, 0, added.stderr);
      assert.deepEqual(JSON.parse(added.stdout), { nodeId: 'red-boat', delegationId: `${id}/red-boat` });
      releaseSailboat();
      let picture: GraphRecord | undefined;
      for (let i = 0; i < 200 && picture?.status !== 'SETTLED'; i++)
        picture = JSON.parse((await runCli(['graph', 'show', id, '--json'], env)).stdout) as GraphRecord;
      assert.equal(picture?.outcome?.kind, 'ACCEPTED');
      assert.equal(picture?.lineage[0]?.versions.length, 2);

      const cyclic = join(dir, 'cyclic.yaml');
      writeFileSync(
        cyclic,
        'nodes:\n  - { id: a, agent: skyway-air, text: x, dependsOn: [b] }\n  - { id: b, agent: skyway-air, text: y, dependsOn: [a] }\n',
      );
      const refused = await runCli(['graph', 'run', cyclic], env);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /node a: dependency cycle a → b → a/);

      const unknownAgent = join(dir, 'unknown.yaml');
      writeFileSync(unknownAgent, 'nodes:\n  - { id: paint, agent: paint-bot, text: x }\n');
      const refusedAgent = await runCli(['graph', 'run', unknownAgent], env);
      assert.equal(refusedAgent.code, 2, refusedAgent.stderr);
      assert.match(refusedAgent.stderr, /node paint: unknown agent paint-bot \(known: /);
    });
  });
  it('shows a node waiting for input with the command that answers it; the answer goes to the node', async () => {
    const qa = await startAgentServer(supplierQa({ workMs: 50 }));
    try {
      await withWorker({ 'supplier-qa': loopbackAgent(qa.url) }, async (ctx) => {
        const { address } = await testServer();
        const config = join(mkdtempSync(join(tmpdir(), 'baton-graph-')), 'baton.config.yaml');
        writeFileSync(
          config,
          `temporal: { address: "${address}", taskQueue: "${ctx.taskQueue}" }\ncaller: { tenant: acme, user: ops-1 }\n`,
        );
        const env = userEnv({ BATON_CONFIG: config });
        const spec = join(mkdtempSync(join(tmpdir(), 'baton-graph-')), 'check.yaml');
        writeFileSync(spec, 'nodes:\n  - { id: check, agent: supplier-qa, text: Verify inspection-92 against order A1042 }\n');
        const started = await runCli(['graph', 'run', spec, '--detach', '--json'], env);
        assert.equal(started.code, 0, started.stderr);
        const { id } = JSON.parse(started.stdout) as { id: string };
        let shown = '';
        for (let i = 0; i < 200 && !/now WAITING_INPUT/.test(shown); i++) shown = (await runCli(['graph', 'show', id], env)).stdout;
        assert.match(shown, new RegExp(`now WAITING_INPUT: waiting for input, answer with \`baton answer ${id}/check\``));
        const answered = await runCli(['answer', `${id}/check`, '--text', 'SN-4471'], env);
        assert.equal(answered.code, 0, answered.stderr);
        const g = await new GraphClient(ctx.client.connection, {
          namespace: ctx.client.options.namespace,
          taskQueue: ctx.taskQueue,
          caller: { tenant: 'acme', user: 'ops-1' },
        }).result(id);
        assert.equal(g.outcome?.kind, 'ACCEPTED');
        // The node told the graph about its remote task and how it ended, but not about its question.
        const signals = ((await ctx.client.workflow.getHandle(id).fetchHistory()).events ?? []).flatMap((e) =>
          e.workflowExecutionSignaledEventAttributes ? [e.workflowExecutionSignaledEventAttributes.signalName] : [],
        );
        assert.deepEqual(signals, ['batonRemoteTask', 'batonSettled']);
      });
    } finally {
      await qa.close();
    }
  });
});
