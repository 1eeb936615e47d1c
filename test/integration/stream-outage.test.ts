/**
 * What a caller sees while Temporal does not answer: Toxiproxy between the readers (`baton ui`'s API,
 * its served agents, `baton watch`) and the Temporal server takes their link down for 30 s while a
 * delegation and a served task work (the worker keeps its own link). With the default ride-out every
 * stream says it waits, shows no change, and goes on to the right end; with a ride-out of 2 s each
 * ends with one retryable error instead. No stream ever shows a state the task was not in.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import pino from 'pino';
import { CallerTokens } from '../../src/auth/caller-tokens';
import { BatonClient } from '../../src/client/baton-client';
import { GraphClient } from '../../src/client/graph-client';
import { ConfigSchema, loopbackAgentEntry } from '../../src/config/schema';
import { startApiServer, type RunningApi } from '../../src/http/api-server';
import { CallerGate } from '../../src/limits/caller-gate';
import { prepareServing } from '../../src/serve/serving';
import { DEFAULT_RIDE_OUT } from '../../src/shared/ride-out';
import { FaultAgent } from '../../infra/fault-agent';
import { CliProcess, userEnv } from '../../infra/cli-process';
import { startToxiproxy, type ProxiedLink, type RunningToxiproxy } from '../../infra/toxiproxy';
import { servedStreamStates, SKILLS } from '../helpers/served';
import { checkRecordStream, readEvents } from '../helpers/sse';
import { batonFor, testServer, withWorker } from '../helpers/temporal';

const TOKEN = 'stream-outage-token-0123456789abcdef';
const CALLER = { tenant: 'acme', user: 'ops-1' };
const OUTAGE_MS = 30_000;

interface SseEvent {
  event: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A record stream read to its end. */
const eventsOf = async (url: string, id: string): Promise<SseEvent[]> =>
  (await readEvents(`${url}/api/v1/delegations/${encodeURIComponent(id)}/events`, TOKEN)) as SseEvent[];

describe('open streams while Temporal does not answer', () => {
  let toxiproxy: RunningToxiproxy;
  let link: ProxiedLink;
  const agent = new FaultAgent('slow-desk', { workMs: 45_000, seed: 3 });
  before(async () => {
    toxiproxy = await startToxiproxy();
    link = await toxiproxy.link('readers', (await testServer()).address);
    await agent.start();
  });
  after(async () => {
    await agent.close();
    await toxiproxy?.stop();
  });

  it('rides the outage out by default, and ends with a retryable error past a short ride-out', { timeout: 150_000 }, async () => {
    const agents = { 'slow-desk': loopbackAgentEntry(agent.url, { observe: 'poll' }) };
    await withWorker(agents, async (ctx) => {
      const { namespace } = await testServer();
      // The readers reach Temporal only through the proxy; the worker and this test do not.
      const readers = await Connection.connect({ address: link.listen });
      const clientOpts = { namespace, taskQueue: ctx.taskQueue, caller: CALLER };
      const baton = new BatonClient(readers, clientOpts);
      const graphs = new GraphClient(readers, clientOpts);
      const tokens = new CallerTokens([{ token: TOKEN, caller: CALLER }]);
      const config = ConfigSchema.parse({
        agents,
        serve: {
          pollMs: 200,
          services: { 'slow-gateway': { description: 'A slow desk behind Baton', skills: SKILLS, delegate: { agent: 'slow-desk' } } },
        },
      });
      const gate = CallerGate.withDefaults(tokens, config.api.rateLimit);
      const serving = await prepareServing(config, { baton, graphs, gate, logger: pino({ level: 'silent' }) });
      assert.ok(serving);
      const api = (rideOutMs: number, servedAgents?: typeof serving.router): Promise<RunningApi> =>
        startApiServer({
          baton,
          graphs,
          tokens,
          budget: gate.budget,
          logger: pino({ level: 'silent' }),
          host: '127.0.0.1',
          port: 0,
          uiDir: null,
          rideOut: { ...DEFAULT_RIDE_OUT, rideOutMs },
          ...(servedAgents ? { servedAgents } : {}),
        });
      const patient = await api(DEFAULT_RIDE_OUT.rideOutMs, serving.router);
      const impatient = await api(2_000);
      serving.listening(patient.url);
      const dir = mkdtempSync(join(tmpdir(), 'baton-outage-'));
      const watch = (rideOut: string) => {
        const file = join(dir, `${rideOut}.yaml`);
        writeFileSync(
          file,
          `temporal: { address: "${link.listen}", namespace: ${namespace}, taskQueue: "${ctx.taskQueue}" }\ncaller: { tenant: acme, user: ops-1 }\napi: { streamRideOut: ${rideOut} }\n`,
        );
        return (id: string) => new CliProcess(['watch', id], userEnv({ BATON_CONFIG: file }));
      };
      try {
        const id = await batonFor(ctx).start({ agent: 'slow-desk', parts: [{ text: 'Take your time' }] });
        await batonFor(ctx).until(id, (r) => r.status === 'REMOTE_ACTIVE', 50);
        const streams = [eventsOf(patient.url, id), eventsOf(impatient.url, id)];
        const watchers = [watch('2m')(id), watch('2s')(id)];
        const served = await servedStreamStates(`${patient.url}/a2a/slow-gateway/`, TOKEN, 'outage-1', 'Take your time too');
        // Every reader is connected and has shown the task once before the link goes down.
        await Promise.all(watchers.map((w) => w.waitFor(id, 'stderr')));
        await new Promise((r) => setTimeout(r, 1_000));
        await served.first; // the served stream has shown the task

        await link.setEnabled(false);
        const down = Date.now();
        void streams[1]?.then(() => console.log(`# a 2 s ride-out ended the record stream ${Date.now() - down} ms into the outage`));
        await new Promise((r) => setTimeout(r, OUTAGE_MS));
        await link.setEnabled(true);

        // Past a short ride-out: one retryable error, the delegation untouched.
        const cut = await (streams[1] as Promise<SseEvent[]>);
        const last = cut.at(-1);
        assert.equal(last?.event, 'error', JSON.stringify(cut.map((e) => e.event)));
        assert.equal(last?.data.error.type, 'Unavailable');
        assert.equal(last?.data.error.retryable, true);
        assert.match(
          last?.data.error.message,
          new RegExp(`^Temporal has not answered for 2 s, so this stream ends; delegation ${id} goes on`),
        );
        checkRecordStream(cut);
        const gaveUp = await (watchers[1] as CliProcess).exited;
        assert.notEqual(gaveUp.code, 0);
        assert.match((watchers[1] as CliProcess).stderr, /Temporal has not answered for 2 s, so this stream ends/);
        assert.doesNotMatch((watchers[1] as CliProcess).stderr, /\n\s+at /, 'one line, no stack trace');

        // The default ride-out: said, waited out, then on to the right end.
        const whole = await (streams[0] as Promise<SseEvent[]>);
        const kinds = whole.map((e) => e.event);
        assert.ok(kinds.includes('unavailable') && kinds.indexOf('available') > kinds.indexOf('unavailable'), kinds.join(', '));
        assert.equal(whole.at(-1)?.event, 'settled');
        assert.equal(whole.at(-1)?.data.outcome.kind, 'ACCEPTED');
        checkRecordStream(whole);
        const watched = await (watchers[0] as CliProcess).exited;
        assert.equal(watched.code, 0, (watchers[0] as CliProcess).stderr);
        assert.match((watchers[0] as CliProcess).stderr, /Temporal is not answering; still watching/);
        assert.match((watchers[0] as CliProcess).stdout + (watchers[0] as CliProcess).stderr, /ACCEPTED/);
        const states = await served.states;
        assert.equal(states.at(-1), 'TASK_STATE_COMPLETED', states.join(', '));
        assert.ok(
          states.every((s) => ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'].includes(s)),
          states.join(', '),
        );
      } finally {
        await patient.close();
        await impatient.close();
        await serving.close();
        await readers.close();
      }
    });
  });
});
