/**
 * CORS for a browser front end on another origin that calls with a token in a header (never a cookie
 * of Baton's): only the configured origins get the headers; a preflight, which carries no
 * credentials, is answered for everyone.
 */
import type { RequestHandler } from 'express';

export function corsFor(corsOrigins: string[], o: { methods: string; headers: string; credentials?: boolean }): RequestHandler {
  const origins = new Set(corsOrigins.map((u) => new URL(u).origin));
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin && origins.has(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Allow-Methods', o.methods);
      res.setHeader('Access-Control-Allow-Headers', o.headers);
      if (o.credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Max-Age', '600');
    }
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next();
  };
}
