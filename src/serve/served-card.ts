/**
 * A served agent's card at `/.well-known/agent-card.json`, public, in A2A's JSON form (the SDK's own
 * handler writes its internal objects, whose `securitySchemes` other SDKs read as empty).
 */
import { createHash } from 'node:crypto';
import express from 'express';
import type { ServedAgent } from './served-agent';

export function servedCardHandler(agent: ServedAgent): express.Router {
  const router = express.Router();
  // Last-Modified: when this process first served the card as it is (A2A 1.0 §8.6 allows it; caches
  // and the TCK's card checks use it beside the ETag).
  let served: { etag: string; since: string } | undefined;
  router.get('/', (req, res, next) => {
    agent.cardJson().then((card) => {
      const body = JSON.stringify(card);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      if (served?.etag !== etag) served = { etag, since: new Date().toUTCString() };
      res.setHeader('ETag', etag);
      res.setHeader('Last-Modified', served.since);
      res.setHeader('Cache-Control', 'public, max-age=3600');
      if (req.fresh) return void res.status(304).end();
      res.type('application/json').send(body);
    }, next);
  });
  return router;
}
