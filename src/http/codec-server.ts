/**
 * The codec server: the two endpoints the Temporal Web UI and the `temporal` CLI call to show
 * encrypted payloads in clear (`POST <endpoint>/decode`) and to encrypt what a person types there
 * (`POST <endpoint>/encode`). Both take and give `{ "payloads": [...] }` in Temporal's JSON form
 * (metadata values and data in base64). It acts only for a known token: `Authorization: Bearer`, or,
 * for a Web UI that sends no header (the dev server's), the path segment before `/decode`.
 */
import { corsFor } from './cors';
import { timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ConfigError } from '../config/config-error';
import type { BatonConfig } from '../config/schema';
import { asBatonError } from '../errors/as-baton-error';
import { BatonError } from '../shared/baton-error';
import { bearerToken, digest } from '../auth/caller-tokens';
import { RateLimitedError, type CallerBudget } from '../limits/caller-budget';
import { defaultBudget } from '../limits/configured-budget';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** The tokens that may use it (kept as digests); each at least 16 characters. */
  tokens: string[];
  /** Browser origins allowed to call it (the Temporal Web UI's). */
  corsOrigins: string[];
  /** The namespace whose payloads it serves: a request naming another (`X-Namespace`) is refused. */
  namespace: string;
  logger: Logger;
  /** Largest request body, read only once its token is known (`encryption.codecServer.maxRequestBytes`). Default 4 MiB. */
  maxRequestBytes?: number;
  /** Requests decoded or encoded at once; more wait (up to 64), past that 503. Default 4. */
  maxConcurrent?: number;
  /** The process's budget: unknown tokens counted per source address, each token's requests. Default: one of its own. */
  budget?: CallerBudget;
}

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const PayloadsSchema = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() })).max(10_000),
});
type JsonPayload = z.infer<typeof PayloadsSchema>['payloads'][number];

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

/** What is wrong with the codec token variables that are set: one line per variable under 16 characters. */
export function codecTokenProblems(config: Pick<BatonConfig, 'encryption'>): string[] {
  return (config.encryption?.codecServer.tokensFromEnv ?? [])
    .filter((name) => (process.env[name] ?? '').length > 0 && (process.env[name] ?? '').length < 16)
    .map((name) => `encryption.codecServer: ${name} must hold at least 16 characters (a guessable token is worse than none)`);
}

/**
 * The codec server's tokens: each `encryption.codecServer.tokensFromEnv` variable that is set, and
 * `extra`; a ConfigError when one is too short.
 */
export function codecTokens(config: Pick<BatonConfig, 'encryption'>, extra?: string): string[] {
  const [problem] = codecTokenProblems(config);
  if (problem) throw new ConfigError(problem);
  const set = (config.encryption?.codecServer.tokensFromEnv ?? []).map((name) => process.env[name] ?? '').filter(Boolean);
  return config.encryption ? [...set, ...(extra ? [extra] : [])] : [];
}

/** What express's JSON reader refused, in Baton's terms. */
function bodyError(err: unknown, maxBytes: number): BatonError | undefined {
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') return new BatonError('InvalidRequest', 'the body is not JSON');
  if (type === 'entity.too.large')
    return new BatonError(
      'PayloadTooLarge',
      `more than ${Math.round(maxBytes / 1024)} KiB of payloads in one request (encryption.codecServer.maxRequestBytes); send fewer at once`,
    );
  return undefined;
}

/** At most `max` at once, up to `queue` more waiting for a turn; past that, refused. */
class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly max: number,
    private readonly queue: number,
  ) {}

  /** A turn (call `done` once, after), or undefined when too many wait already. */
  async take(): Promise<(() => void) | undefined> {
    if (this.running >= this.max) {
      if (this.waiting.length >= this.queue) return undefined;
      await new Promise<void>((r) => this.waiting.push(r));
    }
    this.running += 1;
    return () => {
      this.running -= 1;
      this.waiting.shift()?.();
    };
  }
}

/** The routes, to mount at `/codec` (the endpoint the Web UI and CLI are given). */
export function codecRouter(opts: CodecServerOptions): express.Router {
  const digests = opts.tokens.map(digest);
  const known = (token: string | undefined): boolean => {
    if (!token) return false;
    const given = digest(token);
    let found = false;
    // Every digest is compared, so timing does not tell which one matched.
    for (const d of digests) if (timingSafeEqual(d, given)) found = true;
    return found;
  };
  const log = opts.logger.child({ component: 'codec-server' });
  const router = express.Router();

  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(
    corsFor(opts.corsOrigins, { methods: 'POST, OPTIONS', headers: 'Content-Type, X-Namespace, Authorization', credentials: true }),
  );
  const maxBytes = opts.maxRequestBytes ?? 4 * 1024 * 1024;
  const budget = opts.budget ?? defaultBudget();
  const turns = new Turns(opts.maxConcurrent ?? 4, 64);

  // Before a byte of the body is read: the address's allowance for unknown tokens, the token, its
  // request budget, then a turn (bodies are read a few at a time: memory stays bounded whoever calls).
  const admit = (req: Request, res: Response, next: NextFunction): void => {
    void (async () => {
      await budget.checkSource(req.ip);
      const inPath = typeof req.params.token === 'string' ? req.params.token : undefined;
      const token = bearerToken(req.get('authorization')) ?? inPath;
      if (!known(token)) {
        await budget.unknownToken(req.ip);
        throw new BatonError('Unauthorized', 'send Authorization: Bearer <token> with a token from encryption.codecServer.tokensFromEnv');
      }
      await budget.admitKey(
        `codec:${digest(token as string)
          .toString('hex')
          .slice(0, 32)}`,
      );
      const namespace = req.get('x-namespace');
      if (namespace && namespace !== opts.namespace)
        throw new BatonError('InvalidRequest', `this codec server serves namespace ${opts.namespace}, not ${namespace}`);
      const done = await turns.take();
      if (!done) throw new BatonError('Unavailable', 'the codec server is busy with other requests; try again in a moment');
      // A response closes however the request ends (answered, refused, or its caller gone): the turn ends with it.
      res.once('close', done);
    })().then(() => next(), next);
  };

  const serve = (direction: 'encode' | 'decode') => (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const parsed = PayloadsSchema.safeParse(req.body);
      if (!parsed.success)
        throw new BatonError('InvalidRequest', `send {"payloads": [{"metadata": {...}, "data": "..."}]} with base64 values`);
      const payloads = parsed.data.payloads.map(fromJson);
      const out = direction === 'decode' ? await opts.codec.decode(payloads) : await opts.codec.encode(payloads);
      res.json({ payloads: out.map(toJson) });
    })().catch(next);
  };
  const body = express.json({ limit: maxBytes });
  for (const direction of ['encode', 'decode'] as const)
    for (const path of [`/${direction}`, `/:token/${direction}`]) router.post(path, admit, body, serve(direction));

  router.use((req, _res, next) =>
    next(new BatonError('NotFound', `no codec route for ${req.method} there; POST /codec/decode or /codec/encode`)),
  );
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = bodyError(err, maxBytes) ?? asBatonError(err) ?? new BatonError('Internal', 'internal error (see the server log)');
    if (e instanceof RateLimitedError) res.setHeader('Retry-After', String(e.retryAfterSeconds));
    if (e.kind === 'Unavailable') res.setHeader('Retry-After', '1');
    // The route's pattern, not the path: a path may carry the token.
    if (e.kind === 'Internal')
      log.error({ err, route: (req.route as { path?: string } | undefined)?.path ?? 'none' }, 'codec request failed');
    res.status(e.httpStatus).json({ error: { type: e.kind, message: e.message } });
  });
  return router;
}
