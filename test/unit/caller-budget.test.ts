import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryBudgetStore } from '../../src/limits/budget-store';
import { CallerBudget, RateLimitedError, sourceOf, type CallerLimits } from '../../src/limits/caller-budget';
import { grpcUse, jsonRpcUse, restUse } from '../../src/limits/served-request';
import { charge, take, tokensAt } from '../../src/limits/token-bucket';
import { BatonError } from '../../src/shared/baton-error';

const LIMITS: CallerLimits = {
  requests: { perMinute: 60, burst: 3 },
  work: { perMinute: 60, burst: 5 },
  unknownTokens: { perMinute: 60, burst: 2 },
  streams: 2,
  sessions: 1,
};
const budget = (): CallerBudget =>
  new CallerBudget(new MemoryBudgetStore({ requests: LIMITS.requests, work: LIMITS.work, 'unknown-tokens': LIMITS.unknownTokens }), LIMITS);
const acme = { tenant: 'acme', user: 'ops-1' };
const globex = { tenant: 'globex', user: 'ops-1' };

const refusedFor = async (p: Promise<unknown>): Promise<RateLimitedError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof RateLimitedError) return err;
    throw err;
  }
  throw new Error('went through');
};

describe('token bucket', () => {
  const limit = { perMinute: 60, burst: 4 };
  it('takes a cost only when the bucket holds it, and says when it will', () => {
    const after = take(undefined, 3, 0, limit);
    assert.deepEqual(after.taken, { ok: true });
    assert.equal(after.state.tokens, 1);
    const refused = take(after.state, 3, 0, limit);
    assert.deepEqual(refused.taken, { ok: false, retryAfterMs: 2000 });
    assert.equal(tokensAt(refused.state, 2000, limit), 3);
  });

  it('charges after the fact into debt, never below one burst of it', () => {
    const debt = charge(undefined, 100, 0, limit);
    assert.equal(debt.tokens, -4);
    assert.deepEqual(take(debt, 1, 0, limit).taken, { ok: false, retryAfterMs: 5000 });
  });
});

describe('caller budget', () => {
  it('admits a burst of requests per caller, then refuses with a time to wait; other callers go on', async () => {
    const b = budget();
    for (let i = 0; i < 3; i++) await b.admit(acme);
    const refused = await refusedFor(b.admit(acme));
    assert.equal(refused.kind, 'RateLimited');
    assert.equal(refused.retryAfterSeconds, 1);
    assert.match(refused.message, /more than 60 requests a minute \(bursts of 3\); try again in 1 s/);
    await b.admit(globex);
  });

  it('charges what a request fanned out to: the next request waits it off', async () => {
    const b = budget();
    await b.admit(acme);
    await b.fanOut(acme, 50);
    const refused = await refusedFor(b.admit(acme));
    // -3 (the floor) to 1 token at one a second.
    assert.equal(refused.retryAfterSeconds, 4);
  });

  it('takes work started by its size, and refuses more than a burst outright', async () => {
    const b = budget();
    await b.startWork(acme, 4, 'a graph of 4 nodes');
    const refused = await refusedFor(b.startWork(acme, 2, 'a graph of 2 nodes'));
    assert.match(
      refused.message,
      /starting a graph of 2 nodes goes past 60 delegations a minute \(bursts of 5\) \(api\.limits\.workStarted\)/,
    );
    await assert.rejects(b.startWork(globex, 6, 'a graph of 6 nodes'), (err: BatonError) => {
      assert.equal(err.kind, 'InvalidRequest');
      assert.match(err.message, /a graph of 6 nodes is more than the 5 one caller may start at once \(api\.limits\.workStarted\.burst\)/);
      return true;
    });
  });

  it('holds streams and sessions up to their maximum per caller; a released one is free again', async () => {
    const b = budget();
    const one = await b.openStream(acme);
    await b.openStream(acme);
    assert.match(
      (await refusedFor(b.openStream(acme))).message,
      /you hold 2 open streams or waiting requests already \(api\.limits\.streams\)/,
    );
    await b.openStream(globex);
    await one.release();
    await one.release(); // twice is once
    await b.openStream(acme);
    await refusedFor(b.openStream(acme));
    const session = await b.openSession(acme);
    assert.match((await refusedFor(b.openSession(acme))).message, /you hold 1 MCP sessions already \(api\.limits\.mcpSessions\)/);
    await session.release();
    await b.openSession(acme);
  });

  it('refuses an address that sent too many unknown tokens, before anything else, and only that address', async () => {
    const b = budget();
    await b.checkSource('10.0.0.7');
    await b.unknownToken('10.0.0.7');
    await b.unknownToken('::ffff:10.0.0.7'); // the same address, written as IPv6
    const refused = await refusedFor(b.checkSource('10.0.0.7'));
    assert.match(refused.message, /too many requests with an unknown token from your address \(api\.limits\.unknownTokens\)/);
    await b.checkSource('10.0.0.8');
  });

  it('counts an IPv6 source by its /64', () => {
    assert.equal(sourceOf('2001:db8:1:2:aaaa::1'), sourceOf('2001:db8:1:2:bbbb::2'));
    assert.notEqual(sourceOf('2001:db8:1:2::1'), sourceOf('2001:db8:1:3::1'));
    assert.equal(sourceOf('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(sourceOf(undefined), 'unknown');
  });
});

describe('what a served A2A request uses', () => {
  it('tells a message that starts a task, and a request that holds the connection, on every binding', () => {
    const send = (taskId: string, returnImmediately: boolean) => ({ message: { taskId, parts: [] }, configuration: { returnImmediately } });
    assert.deepEqual(jsonRpcUse({ method: 'SendMessage', params: send('', true) }), { startsTask: true, holds: false });
    assert.deepEqual(jsonRpcUse({ method: 'SendMessage', params: send('t-1', false) }), { startsTask: false, holds: true });
    assert.deepEqual(jsonRpcUse({ method: 'SendStreamingMessage', params: { message: {} } }), { startsTask: true, holds: true });
    assert.deepEqual(jsonRpcUse({ method: 'SubscribeToTask', params: { id: 't' } }), { startsTask: false, holds: true });
    assert.deepEqual(jsonRpcUse({ method: 'GetTask' }), { startsTask: false, holds: false });
    assert.deepEqual(jsonRpcUse('not an object'), { startsTask: false, holds: false });
    assert.deepEqual(restUse('POST', '/v1/message:send', send('', false)), { startsTask: true, holds: true });
    assert.deepEqual(restUse('POST', '/message:stream', send('t-1', true)), { startsTask: false, holds: true });
    assert.deepEqual(restUse('GET', '/v1/tasks/t-1:subscribe', undefined), { startsTask: false, holds: true });
    assert.deepEqual(restUse('GET', '/v1/tasks/t-1', undefined), { startsTask: false, holds: false });
    assert.deepEqual(grpcUse('/a2a.v1.A2AService/SendMessage', send('', true)), { startsTask: true, holds: false });
    assert.deepEqual(grpcUse('/a2a.v1.A2AService/SubscribeToTask', {}), { startsTask: false, holds: true });
    assert.deepEqual(grpcUse('/a2a.v1.A2AService/ListTasks', {}), { startsTask: false, holds: false });
  });
});
