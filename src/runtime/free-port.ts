/**
 * Free loopback ports for the servers Baton starts itself (the dev server and its UI, and the test and
 * benchmark tooling's), picked below the ephemeral range (32768 and up on Linux, 49152 and up on macOS
 * and Windows). The system hands out ports in that range to every bind(0) and every outgoing
 * connection, so a port found by binding 0 and closing can be taken by either before its owner binds
 * it (a CI run once lost `baton dev` to it). Below the range only another pick like this one can take
 * it, and picks are random over 12,000 ports.
 */
import { createServer } from 'node:net';

const LOWEST = 20_000;
const PAST_HIGHEST = 32_000;
const TRIES = 50;

/** True when `port` can be bound on 127.0.0.1 now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** `count` consecutive ports on 127.0.0.1 that are free now, below the ephemeral range. */
export async function freePortBlock(count: number): Promise<number> {
  for (let tries = 0; tries < TRIES; tries++) {
    const base = LOWEST + Math.floor(Math.random() * (PAST_HIGHEST - LOWEST - count));
    let free = true;
    for (let i = 0; i < count && free; i++) free = await bindable(base + i);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports on 127.0.0.1 between ${LOWEST} and ${PAST_HIGHEST}: stop what holds them`);
}

/** One free port on 127.0.0.1, below the ephemeral range (see the file's comment). */
export function freePort(): Promise<number> {
  return freePortBlock(1);
}
