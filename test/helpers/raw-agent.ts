/**
 * A hand-driven A2A agent over real HTTP on loopback: each test decides what its card endpoint and its
 * JSON-RPC endpoint answer, byte for byte. For hostile and malformed answers the SDK server never gives.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { closeServer } from '../../src/runtime/listen';

export interface RawAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

export class RawAgent {
  url = '';
  /** What the card endpoint answers; default a valid 1.0 card whose JSON-RPC interface is `${url}/rpc`. */
  card: () => RawAnswer = () => ({ body: JSON.stringify(this.validCard()) });
  /** What the JSON-RPC endpoint answers, given the parsed request (and its headers). */
  rpc: (request: { id: unknown; method: string; params: unknown }, headers: Record<string, string | string[] | undefined>) => RawAnswer = (
    r,
  ) => ({
    body: JSON.stringify({ jsonrpc: '2.0', id: r.id, error: { code: -32601, message: 'not scripted' } }),
  });
  private server?: ReturnType<ReturnType<typeof express>['listen']>;

  validCard(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      name: 'raw',
      description: 'a scripted agent',
      version: '1',
      supportedInterfaces: [{ url: `${this.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
      ...overrides,
    };
  }

  /** A JSON-RPC success envelope for the request. */
  static result(request: { id: unknown }, result: unknown): RawAnswer {
    return { body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result }) };
  }

  async start(): Promise<this> {
    const app = express();
    app.use(express.json({ limit: '1mb' }));
    const send = (res: express.Response, answer: RawAnswer): void => {
      res.status(answer.status ?? 200);
      res.set({ 'content-type': 'application/json', ...answer.headers });
      res.send(answer.body ?? '');
    };
    app.get('/.well-known/agent-card.json', (_req, res) => send(res, this.card()));
    app.post('/rpc', (req, res) => send(res, this.rpc(req.body as { id: unknown; method: string; params: unknown }, req.headers)));
    await new Promise<void>((resolveListen) => {
      this.server = app.listen(0, '127.0.0.1', () => resolveListen());
    });
    this.url = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    if (this.server) await closeServer(this.server);
  }
}
