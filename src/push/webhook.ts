/**
 * The push webhook: agents POST task events here. Each call is checked (the per-task token, the task
 * it names, the body), answered 2xx at once, deduplicated, and only then passed to the delegation as
 * a Signal; the workflow treats it as a hint and reads the task with GetTask. Nothing here needs a
 * database: the token is an HMAC of delegation and task id under the shared secret.
 */
import { recordPushReceived } from '../telemetry/metrics';
import { closeServer, listen } from '../runtime/listen';
import { RateLimiter, retryAfterSeconds } from '../limits/rate-limit';
import { createHash } from 'node:crypto';
import express from 'express';
import type { Logger } from 'pino';
import { taskIdOfPush } from './push-body';
import { tokenFromHeaders, verifyPushToken } from './token';

export interface WebhookOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 for a free one. Default 0. */
  port?: number;
  /** The HMAC key, the same as the workers'. */
  secret: string;
  /** Passes a verified push on (a Signal to the delegation workflow). */
  deliver: (delegationId: string, taskId: string) => Promise<void>;
  logger: Logger;
  /** How long a push body is remembered to drop its duplicates. Default 10 minutes. */
  dedupTtlMs?: number;
  /** Largest push body. Default 1 MiB (a push is a hint; GetTask brings the content). */
  maxBodyBytes?: number;
  /** Verified pushes one delegation may send (`push.rateLimit`). Default 120 a minute, bursts of 30. */
  rateLimit?: { pushesPerMinute: number; burst: number };
}

export interface RunningWebhook {
  /** Base URL; pushes go to `<url>/push/<delegation id>`. */
  url: string;
  /** Counts since start, for logs and tests. */
  stats: { delivered: number; duplicates: number; refused: number; rateLimited: number };
  close(): Promise<void>;
}

export async function startWebhook(opts: WebhookOptions): Promise<RunningWebhook> {
  const host = opts.host ?? '127.0.0.1';
  const ttl = opts.dedupTtlMs ?? 10 * 60_000;
  const seen = new Map<string, number>();
  const stats = { delivered: 0, duplicates: 0, refused: 0, rateLimited: 0 };
  const rate = opts.rateLimit ?? { pushesPerMinute: 120, burst: 30 };
  const limiter = new RateLimiter({ perMinute: rate.pushesPerMinute, burst: rate.burst });
  const log = opts.logger.child({ component: 'webhook' });
  const app = express();

  app.get('/healthz', (_req, res) => void res.json({ ok: true }));
  app.post('/push/:delegationId', express.raw({ type: () => true, limit: opts.maxBodyBytes ?? 1024 * 1024 }), (req, res) => {
    const delegationId = String(req.params.delegationId);
    const refuse = (status: number, why: string): void => {
      stats.refused += 1;
      recordPushReceived('refused');
      log.warn({ delegationId, status, why }, 'push refused');
      res.status(status).json({ error: why });
    };
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return refuse(400, 'the body is not JSON');
    }
    const taskId = taskIdOfPush(body);
    if (!taskId) return refuse(400, 'the body names no task');
    const token = tokenFromHeaders(req.headers);
    if (!token) return refuse(401, 'no push token (Authorization or X-A2A-Notification-Token)');
    // The token binds this delegation to this task: another task's or delegation's token fails here.
    if (!verifyPushToken(opts.secret, delegationId, taskId, token))
      return refuse(401, 'the push token does not match this delegation and task');
    // Counted after the token: a forged push cannot use up a delegation's allowance.
    const taken = limiter.take(delegationId);
    if (!taken.ok) {
      stats.rateLimited += 1;
      recordPushReceived('rate_limited');
      const seconds = retryAfterSeconds(taken.retryAfterMs);
      log.warn({ delegationId, taskId, retryAfterSeconds: seconds }, 'push rate limited');
      return void res
        .status(429)
        .set('Retry-After', String(seconds))
        .json({ error: `more than ${rate.pushesPerMinute} pushes a minute for this delegation; try again in ${seconds} s` });
    }

    const now = Date.now();
    for (const [key, at] of seen) if (now - at > ttl) seen.delete(key);
    const key = createHash('sha256').update(delegationId).update('\n').update(taskId).update('\n').update(raw).digest('hex');
    if (seen.has(key)) {
      stats.duplicates += 1;
      recordPushReceived('duplicate');
      log.info({ delegationId, taskId }, 'duplicate push dropped');
      return void res.status(200).json({ status: 'duplicate' });
    }
    seen.set(key, now);
    recordPushReceived('accepted');
    // Answer first: the agent must not wait on Temporal.
    res.status(202).json({ status: 'accepted' });
    opts.deliver(delegationId, taskId).then(
      () => {
        stats.delivered += 1;
        log.info({ delegationId, taskId }, 'push delivered');
      },
      (err: unknown) =>
        log.warn({ delegationId, taskId, err: (err as Error).message }, 'push could not be delivered (the delegation may have settled)'),
    );
  });
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = (err as { status?: number }).status ?? 400;
    stats.refused += 1;
    recordPushReceived('refused');
    log.warn({ status, why: (err as Error).message }, 'push refused');
    res.status(status).json({ error: (err as Error).message });
  });

  const { server, port } = await listen(app, host, opts.port ?? 0, 'push.listen.port, or --webhook-port');
  return {
    url: `http://${host}:${port}`,
    stats,
    close: () => closeServer(server),
  };
}
