import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { describe, it } from 'node:test';
import { reservePort } from '../../src/runtime/port-reservation';

/** Listens on 127.0.0.1:`port`, or rejects with the bind error. */
const bind = (port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('a reserved port', () => {
  it('cannot be taken by anyone else until it is released, then binds at once', async () => {
    const reserved = await reservePort();
    assert.ok(reserved.port > 0);
    await assert.rejects(bind(reserved.port), { code: 'EADDRINUSE' });
    await reserved.release();
    await reserved.release(); // a second release is harmless
    const server = await bind(reserved.port);
    await new Promise<void>((done) => server.close(() => done()));
  });
});
