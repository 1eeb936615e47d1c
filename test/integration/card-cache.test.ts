/**
 * A checked card is reused for the agent's `cardTtl`, then fetched and checked again whole: a card
 * signed with a key that is not pinned is refused as soon as it is fetched again, never used on the
 * strength of the earlier check. The card is served by a small card host in front of two real
 * agents, each signing its card with its own key; only the first key is pinned.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { generateAgentCardSignature } from '@a2a-js/sdk';
import { loopbackAgentEntry } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { bookingDesk } from '../../src/demo/trip-agents';
import { batonFor, withWorker } from '../helpers/temporal';

function signedDesk(kid: string): { agent: Promise<RunningAgent>; jwk: Record<string, unknown> } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer = generateAgentCardSignature(privateKey.export({ format: 'jwk' }) as never, { alg: 'ES256', kid, typ: 'JOSE' });
  const agent = startAgentServer({ ...bookingDesk(`desk-${kid}`, 'Books at once', { workMs: 0 }), streaming: true }, { signer });
  return { agent, jwk: publicKey.export({ format: 'jwk' }) as Record<string, unknown> };
}

describe('the card cache', () => {
  const pinned = signedDesk('k1');
  const other = signedDesk('k2');
  let agents: RunningAgent[];
  let host: Server;
  let hostUrl = '';
  /** The agent whose card the host serves, and how often the card was asked for. */
  let serving: RunningAgent;
  let fetches = 0;

  before(async () => {
    agents = [await pinned.agent, await other.agent];
    serving = agents[0] as RunningAgent;
    host = createServer((req, res) => {
      fetches += 1;
      void fetch(`${serving.url}${req.url ?? '/'}`).then(async (upstream) => {
        res.writeHead(upstream.status, { 'content-type': 'application/json' });
        res.end(await upstream.text());
      });
    });
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', () => r()));
    hostUrl = `http://127.0.0.1:${(host.address() as { port: number }).port}`;
  });
  after(async () => {
    await new Promise((r) => host.close(r));
    for (const a of agents) await a.close();
  });

  it('reuses a checked card for cardTtl, then checks the new one whole and refuses it', { timeout: 60_000 }, async () => {
    const entry = loopbackAgentEntry(hostUrl, {
      acceptance: 'accept-any',
      cardTtl: '3s',
      allowedOrigins: agents.map((a) => new URL(a.url).origin),
      signature: { required: true, keys: [{ kid: 'k1', jwk: pinned.jwk }] },
    });
    await withWorker({ desk: entry }, async (ctx) => {
      const baton = batonFor(ctx);
      const run = async () => baton.result(await baton.start({ agent: 'desk', parts: [{ text: 'book it' }] }));

      const first = await run();
      const firstFetchAt = Date.now();
      assert.equal(first.outcome?.kind, 'ACCEPTED');
      assert.equal(fetches, 1, 'the card was fetched once');

      // The host now serves a card signed with a key that is not pinned.
      serving = agents[1] as RunningAgent;
      const second = await run();
      assert.equal(second.outcome?.kind, 'ACCEPTED', JSON.stringify(second.outcome));
      assert.equal(second.agent?.cardSha256, first.agent?.cardSha256, 'the checked card was reused');
      assert.equal(fetches, 1, 'within cardTtl the card is not fetched again');
      assert.ok(Date.now() - firstFetchAt < 3_000, 'the second delegation ran within cardTtl (else this test proves nothing)');

      // 👉 No event says a time-to-live passed: wait it out.
      await new Promise((r) => setTimeout(r, Math.max(0, firstFetchAt + 3_100 - Date.now())));
      const third = await run();
      assert.equal(third.outcome?.kind, 'ERROR');
      assert.match(third.outcome?.reasons.join(' ') ?? '', /TrustRefused.*signature does not verify/);
      assert.equal(fetches, 2, 'the card was fetched again once the ttl passed');
    });
  });
});
