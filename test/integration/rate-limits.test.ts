/**
 * Rate limits: the HTTP API per caller, the webhook per delegation; past the limit, 429 with
 * Retry-After, and other callers and delegations are not held back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { BatonClient } from '../../src/client/baton-client';
import { GraphClient } from '../../src/client/graph-client';
import { startApiServer } from '../../src/http/api-server';
import { CallerTokens } from '../../src/auth/caller-tokens';
import { pushToken } from '../../src/push/token';
import { startWebhook } from '../../src/push/webhook';
import { Connection } from '@temporalio/client';
import { testServer } from '../helpers/temporal';

const ACME = 'acme-token-0123456789abcdef';
const GLOBEX = 'globex-token-0123456789abcdef';

describe('rate limits', () => {
  it("the HTTP API answers 429 with Retry-After past a caller's limit, and serves other callers", async () => {
    const { address } = await testServer();
    const connection = await Connection.connect({ address });
    const opts = { namespace: 'default', taskQueue: 'unused', caller: { tenant: 'nobody', user: 'nobody' } };
    const api = await startApiServer({
      baton: new BatonClient(connection, opts),
      graphs: new GraphClient(connection, opts),
      tokens: new CallerTokens([
        { token: ACME, caller: { tenant: 'acme', user: 'ops-1' } },
        { token: GLOBEX, caller: { tenant: 'globex', user: 'mallory' } },
      ]),
      logger: pino({ level: 'silent' }),
      host: '127.0.0.1',
      port: 0,
      uiDir: null,
      rateLimit: { requestsPerMinute: 60, burst: 3 },
    });
    try {
      const whoami = (token: string) => fetch(`${api.url}/api/v1/whoami`, { headers: { Authorization: `Bearer ${token}` } });
      for (let i = 0; i < 3; i++) assert.equal((await whoami(ACME)).status, 200);
      const limited = await whoami(ACME);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1, `Retry-After: ${limited.headers.get('retry-after')}`);
      const body = (await limited.json()) as { error: { type: string; message: string } };
      assert.equal(body.error.type, 'RateLimited');
      assert.match(body.error.message, /more than 60 requests a minute \(bursts of 3\); try again in \d+ s/);
      assert.equal((await whoami(GLOBEX)).status, 200, 'another caller is not held back');
    } finally {
      await api.close();
      await connection.close();
    }
  });

  it("the webhook answers 429 with Retry-After past a delegation's limit, and passes on other delegations' pushes", async () => {
    const secret = 'push-secret-for-rate-limits';
    const delivered: string[] = [];
    const webhook = await startWebhook({
      secret,
      logger: pino({ level: 'silent' }),
      deliver: async (delegationId) => void delivered.push(delegationId),
      rateLimit: { pushesPerMinute: 60, burst: 2 },
    });
    try {
      const push = (delegationId: string, n: number) =>
        fetch(`${webhook.url}/push/${delegationId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-a2a-notification-token': pushToken(secret, delegationId, 't-1') },
          body: JSON.stringify({ statusUpdate: { taskId: 't-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, n } }),
        });
      assert.equal((await push('dlg-busy', 1)).status, 202);
      assert.equal((await push('dlg-busy', 2)).status, 202);
      const limited = await push('dlg-busy', 3);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      assert.equal((await push('dlg-quiet', 1)).status, 202, 'another delegation is not held back');
      assert.deepEqual(delivered.sort(), ['dlg-busy', 'dlg-busy', 'dlg-quiet']);
    } finally {
      await webhook.close();
    }
  });
});
