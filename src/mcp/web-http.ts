/**
 * Node's request and response as the web-standard ones the MCP SDK's transport takes and gives, so a
 * session can be served, and taken up again, through the transport's public interface alone.
 */
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';

/** The web Request for `req`, without its body: express has parsed it already and the transport is given that. */
export function webRequestOf(req: ExpressRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const url = new URL(req.originalUrl, `http://${req.headers.host ?? '127.0.0.1'}`);
  return new Request(url, { method: req.method, headers });
}

/**
 * Writes `web` to `res`, streaming its body (an SSE stream stays open until either side ends it). A
 * caller that goes away cancels the body, which is how the transport learns a stream was dropped.
 */
export async function sendWebResponse(web: Response, res: ExpressResponse): Promise<void> {
  res.status(web.status);
  web.headers.forEach((value, name) => res.setHeader(name, value));
  if (!web.body) return void res.end();
  res.flushHeaders();
  const reader = web.body.getReader();
  const dropped = (): void => void reader.cancel().catch(() => undefined);
  res.once('close', dropped);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((r) => res.once('drain', r).once('close', r));
    }
  } catch {
    // The stream failed or was cancelled: the response ends here either way.
  } finally {
    res.off('close', dropped);
    res.end();
  }
}
