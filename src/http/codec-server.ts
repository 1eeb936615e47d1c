/**
 * The codec server: the two endpoints the Temporal Web UI and the `temporal` CLI call to show
 * encrypted payloads in clear (`POST <endpoint>/decode`) and to encrypt what a person types there
 * (`POST <endpoint>/encode`). Both take and give `{ "payloads": [...] }` in Temporal's JSON form
 * (metadata values and data in base64). It acts only for a known token: `Authorization: Bearer`, or,
 * for a Web UI that sends no header (the dev server's), the path segment before `/decode`.
 */
import { timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ConfigError } from '../config/config-error';
import type { BatonConfig } from '../config/schema';
import { asBatonError } from '../errors/as-baton-error';
import { BatonError } from '../shared/baton-error';
import { bearerToken, digest } from './caller-tokens';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** The tokens that may use it (kept as digests); each at least 16 characters. */
  tokens: string[];
  /** Browser origins allowed to call it (the Temporal Web UI's). */
  corsOrigins: string[];
  /** The namespace whose payloads it serves: a request naming another (`X-Namespace`) is refused. */
  namespace: string;
  logger: Logger;
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
function bodyError(err: unknown): BatonError | undefined {
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') return new BatonError('InvalidRequest', 'the body is not JSON');
  if (type === 'entity.too.large')
    return new BatonError('PayloadTooLarge', 'more than 32 MiB of payloads in one request; send fewer at once');
  return undefined;
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
  const origins = new Set(opts.corsOrigins.map((o) => new URL(o).origin));
  const log = opts.logger.child({ component: 'codec-server' });
  const router = express.Router();

  router.use((req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    const origin = req.get('origin');
    if (origin && origins.has(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Max-Age', '600');
    }
    // A preflight carries no credentials: answered for everyone, and only allowed origins get the headers.
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next();
  });
  router.use(express.json({ limit: '32mb' }));

  const serve = (direction: 'encode' | 'decode') => (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const inPath = typeof req.params.token === 'string' ? req.params.token : undefined;
      if (!known(bearerToken(req.get('authorization')) ?? inPath))
        throw new BatonError('Unauthorized', 'send Authorization: Bearer <token> with a token from encryption.codecServer.tokensFromEnv');
      const namespace = req.get('x-namespace');
      if (namespace && namespace !== opts.namespace)
        throw new BatonError('InvalidRequest', `this codec server serves namespace ${opts.namespace}, not ${namespace}`);
      const parsed = PayloadsSchema.safeParse(req.body);
      if (!parsed.success)
        throw new BatonError('InvalidRequest', `send {"payloads": [{"metadata": {...}, "data": "..."}]} with base64 values`);
      const payloads = parsed.data.payloads.map(fromJson);
      const out = direction === 'decode' ? await opts.codec.decode(payloads) : await opts.codec.encode(payloads);
      res.json({ payloads: out.map(toJson) });
    })().catch(next);
  };
  router.post('/encode', serve('encode'));
  router.post('/decode', serve('decode'));
  router.post('/:token/encode', serve('encode'));
  router.post('/:token/decode', serve('decode'));

  router.use((req, _res, next) =>
    next(new BatonError('NotFound', `no codec route for ${req.method} there; POST /codec/decode or /codec/encode`)),
  );
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = bodyError(err) ?? asBatonError(err) ?? new BatonError('Internal', 'internal error (see the server log)');
    // The route's pattern, not the path: a path may carry the token.
    if (e.kind === 'Internal')
      log.error({ err, route: (req.route as { path?: string } | undefined)?.path ?? 'none' }, 'codec request failed');
    res.status(e.httpStatus).json({ error: { type: e.kind, message: e.message } });
  });
  return router;
}
