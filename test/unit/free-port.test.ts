import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { describe, it } from 'node:test';
import { freePort, freePortBlock } from '../../src/runtime/free-port';

/** Listens on 127.0.0.1:`port`, or rejects with the bind error. */
const bind = (port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

const close = (server: Server): Promise<void> => new Promise((done) => server.close(() => done()));

/** The lowest port the system hands out by itself (to bind(0) and outgoing connections). */
function ephemeralLowest(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 49_152;
  }
}

describe('free ports', () => {
  it('are picked below the range the system hands out by itself, and bind', async () => {
    const lowest = ephemeralLowest();
    const picked = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      assert.ok(port >= 20_000 && port < Math.min(32_000, lowest), `port ${port} is below ${lowest}`);
      picked.add(port);
    }
    assert.ok(picked.size > 1, 'picks are random, not one port again and again');
    const server = await bind(await freePort());
    await close(server);
  });

  it('come in blocks of consecutive ports that all bind', async () => {
    const base = await freePortBlock(5);
    const servers = [];
    for (let i = 0; i < 5; i++) servers.push(await bind(base + i));
    await Promise.all(servers.map(close));
  });
});
