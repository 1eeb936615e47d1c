/**
 * A webhook on loopback for the push tests: it keeps every notification it is sent, answers each path
 * as told (200 unless `answers` says otherwise), and lets a test wait for what it expects.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Pushed {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as it came. */
  raw: string;
  body: {
    task?: { id: string; status: { state: string }; artifacts?: { name?: string; parts: { data?: unknown }[] }[] };
    statusUpdate?: { taskId: string; status: { state: string } };
  };
}

/** The state a notification carries, whichever form it has. */
export const stateOf = (p: Pushed): string => p.body.task?.status.state ?? p.body.statusUpdate?.status.state ?? '?';

/** A webhook on loopback: keeps every POST; `answers` says what each path answers (default 200). */
export class Webhook {
  readonly received: Pushed[] = [];
  readonly answers = new Map<string, () => number>();
  private waiters: (() => void)[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        const status = this.answers.get(path)?.() ?? 200;
        const raw = Buffer.concat(chunks).toString('utf8');
        this.received.push({ path, headers: req.headers, raw, body: JSON.parse(raw) as Pushed['body'] });
        res.writeHead(status).end();
        for (const w of this.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The POSTs to `path` so far. */
  at(path: string): Pushed[] {
    return this.received.filter((p) => p.path === path);
  }

  /** Resolves once `done` holds of the POSTs to `path` (checked on each POST). */
  async until(path: string, done: (posts: Pushed[]) => boolean, what: string): Promise<Pushed[]> {
    const deadline = Date.now() + 60_000;
    while (!done(this.at(path))) {
      if (Date.now() > deadline) assert.fail(`webhook ${path}: ${what} did not come in 60 s; got ${this.at(path).map(stateOf).join(', ')}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 1_000).unref();
      });
    }
    return this.at(path);
  }

  close(): Promise<void> {
    return new Promise((r) => this.server?.close(() => r()));
  }
}
