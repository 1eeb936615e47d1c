/**
 * What one caller can do to everyone else on a shared `baton dev` (issue #49's three load holes),
 * measured from outside over HTTP, the way a hostile caller would:
 *
 * 1. **Unauthenticated bodies**: the process's resident memory while 8 unauthenticated 30 MB POSTs to
 *    `/codec/decode` are sent at once, and while 6 such bodies are held open one byte short.
 * 2. **MCP sessions**: how many sessions one caller opens at `/mcp` (paced to stay within its request
 *    rate), and whether another caller can still open one.
 * 3. **Another tenant's read latency**: tenant globex reads its own delegation alone, then while
 *    tenant acme (50 delegations waiting for input) runs 12 inbox loops that honour Retry-After and
 *    holds as many event streams as it is let open (up to 110).
 *
 *   node lib/bench/shared-service.js [--out docs/BENCHMARKS.shared-service.json] [--samples 100]
 *
 * Prints the figures as JSON (and writes them with --out). Never fails on a number.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../src/runtime/free-port';
import { CliProcess, userEnv } from '../infra/cli-process';
import { quantile } from './report-section';

const say = (line: string): void => void process.stderr.write(`${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface SharedServiceFigures {
  date: string;
  command: string;
  commit: string;
  codec: {
    /** Resident memory of the `baton dev` process before, in MiB. */
    rssBeforeMiB: number;
    /** Highest resident memory while 8 unauthenticated 30 MB bodies were sent at once, in MiB. */
    rssPeakMiB: number;
    /** The statuses the 8 got. */
    statuses: number[];
    /** Resident memory while 6 bodies were held open one byte short, in MiB. */
    rssHeldMiB: number;
  };
  mcp: {
    /** Sessions one caller opened before it was refused (or at the attempt cap). */
    openedByOneCaller: number;
    attempts: number;
    /** The status of another caller's initialize afterwards. */
    otherCallerStatus: number;
  };
  latency: {
    /** globex reading its own delegation, alone: ms. */
    alone: { p50: number; p99: number };
    /** The same while acme floods: ms. */
    flooded: { p50: number; p99: number };
    /** acme's inbox answers during the flood, by status. */
    inboxStatuses: Record<string, number>;
    /** Event streams acme was let open (of 110 tried). */
    streamsOpen: number;
  };
}

const CONFIG = (env: { acme: string; globex: string; key: string; codec: string }) => `
api:
  callers:
    - { tokenFromEnv: ${env.acme}, tenant: acme, user: ops-1 }
    - { tokenFromEnv: ${env.globex}, tenant: globex, user: ops-2 }
encryption:
  currentKey: k1
  keys: { k1: { fromEnv: ${env.key} } }
  codecServer: { tokensFromEnv: [${env.codec}] }
`;

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** POSTs `bytes` of body to `url` without a token, in 1 MiB writes; `short` holds the last byte back (the request stays open). */
function unauthenticatedPost(url: string, bytes: number, short: boolean): { done: Promise<number>; abort(): void } {
  const u = new URL(url);
  const req = request({
    host: u.hostname,
    port: u.port,
    path: u.pathname,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(bytes) },
  });
  const done = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  void (async () => {
    const total = short ? bytes - 1 : bytes;
    let sent = 0;
    req.write('{"payloads":[');
    sent += 13;
    while (sent < total) {
      const n = Math.min(chunk.length, total - sent);
      const ok = req.write(n === chunk.length ? chunk : chunk.subarray(0, n));
      sent += n;
      if (!ok) await new Promise<void>((r) => req.once('drain', () => r()));
      if (req.destroyed) return;
    }
    if (!short) req.end();
  })().catch(() => undefined);
  return { done, abort: () => req.destroy() };
}

async function codecFigures(pid: number, app: string): Promise<SharedServiceFigures['codec']> {
  await sleep(2_000);
  const rssBeforeMiB = rssMiB(pid);
  let peak = rssBeforeMiB;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
  const posts = Array.from({ length: 8 }, () => unauthenticatedPost(`${app}/codec/decode`, 30_000_000, false));
  const statuses = await Promise.all(posts.map((p) => p.done));
  clearInterval(sampler);
  await sleep(2_000);
  const held = Array.from({ length: 6 }, () => unauthenticatedPost(`${app}/codec/decode`, 30_000_000, true));
  // Long enough for 180 MB to arrive over loopback, or to be refused.
  await sleep(6_000);
  const rssHeldMiB = rssMiB(pid);
  for (const h of held) h.abort();
  return { rssBeforeMiB, rssPeakMiB: peak, statuses, rssHeldMiB };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
};

async function initialize(app: string, token: string): Promise<number> {
  const res = await fetch(`${app}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(INITIALIZE),
  });
  await res.text();
  return res.status;
}

async function mcpFigures(app: string, acme: string, globex: string, attempts: number): Promise<SharedServiceFigures['mcp']> {
  let opened = 0;
  let tried = 0;
  // 8 a second: within the default 600 requests a minute.
  for (; tried < attempts; tried++) {
    const status = await initialize(app, acme);
    if (status !== 200) break;
    opened += 1;
    await sleep(125);
  }
  return { openedByOneCaller: opened, attempts: tried + (tried < attempts ? 1 : 0), otherCallerStatus: await initialize(app, globex) };
}

async function api(
  app: string,
  token: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown; retryAfter?: number }> {
  const res = await fetch(`${app}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  const text = await res.text();
  const retry = res.headers.get('retry-after');
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined, ...(retry ? { retryAfter: Number(retry) } : {}) };
}

async function startWaiting(app: string, token: string): Promise<string> {
  for (;;) {
    const started = await api(app, token, '/delegations', {
      method: 'POST',
      body: JSON.stringify({ agent: 'supplier-qa', text: 'Verify inspection-92 against order A1042' }),
    });
    if (started.status === 201) return (started.body as { id: string }).id;
    if (started.status === 429) await sleep((started.retryAfter ?? 1) * 1000);
    else throw new Error(`start answered ${started.status}: ${JSON.stringify(started.body)}`);
  }
}

async function untilWaiting(app: string, token: string, id: string): Promise<void> {
  for (;;) {
    const shown = await api(app, token, `/delegations/${encodeURIComponent(id)}`);
    if (shown.status === 200 && (shown.body as { status: string }).status === 'WAITING_INPUT') return;
    await sleep(shown.status === 429 ? (shown.retryAfter ?? 1) * 1000 : 200);
  }
}

async function readTimes(app: string, token: string, id: string, samples: number): Promise<number[]> {
  const times: number[] = [];
  while (times.length < samples) {
    const t0 = performance.now();
    const got = await api(app, token, `/delegations/${encodeURIComponent(id)}`);
    if (got.status !== 200) throw new Error(`globex's read answered ${got.status}`);
    times.push(performance.now() - t0);
    await sleep(50);
  }
  return times;
}

async function latencyFigures(app: string, acme: string, globex: string, samples: number): Promise<SharedServiceFigures['latency']> {
  say('latency: 50 delegations of acme waiting for input, one of globex…');
  const acmeIds: string[] = [];
  for (let i = 0; i < 50; i++) acmeIds.push(await startWaiting(app, acme));
  const mine = await startWaiting(app, globex);
  for (const id of [...acmeIds, mine]) await untilWaiting(app, id === mine ? globex : acme, id);
  const ms = (xs: number[]) => ({ p50: Math.round(quantile(xs, 0.5)), p99: Math.round(quantile(xs, 0.99)) });
  // The flood's bucket refills while globex reads alone.
  await sleep(5_000);
  const alone = await readTimes(app, globex, mine, samples);
  say(`latency: alone p50 ${ms(alone).p50} ms; now acme floods…`);
  const controller = new AbortController();
  let streamsOpen = 0;
  // Held open, never read: each one the server lets open reads the delegation until the flood ends.
  for (let i = 0; i < 110; i++)
    void fetch(`${app}/api/v1/delegations/${encodeURIComponent(acmeIds[i % acmeIds.length] as string)}/events`, {
      headers: { authorization: `Bearer ${acme}` },
      signal: controller.signal,
    })
      .then((res) => {
        if (res.status === 200) streamsOpen += 1;
        else return res.body?.cancel();
      })
      .catch(() => undefined);
  const inboxStatuses: Record<string, number> = {};
  let flooding = true;
  const loops = Array.from({ length: 12 }, async () => {
    while (flooding) {
      const got = await api(app, acme, '/inbox').catch(() => ({ status: 0, retryAfter: 1 }));
      inboxStatuses[String(got.status)] = (inboxStatuses[String(got.status)] ?? 0) + 1;
      if (got.status === 429) await sleep(Math.min(5, got.retryAfter ?? 1) * 1000);
    }
  });
  await sleep(3_000);
  const flooded = await readTimes(app, globex, mine, samples);
  flooding = false;
  controller.abort();
  await Promise.all(loops);
  return { alone: ms(alone), flooded: ms(flooded), inboxStatuses, streamsOpen };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, samples: { type: 'string', default: '100' }, sessions: { type: 'string', default: '1100' } },
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-shared-'));
  const tokens = { acme: randomBytes(24).toString('base64url'), globex: randomBytes(24).toString('base64url') };
  const env = { acme: 'BENCH_ACME_TOKEN', globex: 'BENCH_GLOBEX_TOKEN', key: 'BENCH_CODEC_KEY', codec: 'BENCH_CODEC_TOKEN' };
  writeFileSync(join(dir, 'baton.config.yaml'), CONFIG(env));
  const appPort = await freePort();
  const dev = new CliProcess(
    [
      'dev',
      '--config',
      join(dir, 'baton.config.yaml'),
      '--port',
      '0',
      '--ui-port',
      '0',
      '--agents-port',
      '0',
      '--webhook-port',
      String(await freePort()),
      '--app-port',
      String(appPort),
      '--db',
      join(dir, 'temporal.sqlite'),
    ],
    userEnv({
      BATON_LOG_LEVEL: 'warn',
      [env.acme]: tokens.acme,
      [env.globex]: tokens.globex,
      [env.key]: randomBytes(32).toString('base64'),
      [env.codec]: randomBytes(24).toString('base64url'),
    }),
    dir,
  );
  try {
    await dev.waitFor('Baton dev stack is up.');
    const app = `http://127.0.0.1:${appPort}`;
    const pid = dev.child.pid as number;
    say('codec: 8 unauthenticated 30 MB bodies, then 6 held open…');
    const codec = await codecFigures(pid, app);
    say(`codec: ${JSON.stringify(codec)}`);
    say('mcp: one caller opens sessions…');
    const mcp = await mcpFigures(app, tokens.acme, tokens.globex, Number(values.sessions));
    say(`mcp: ${JSON.stringify(mcp)}`);
    const latency = await latencyFigures(app, tokens.acme, tokens.globex, Number(values.samples));
    say(`latency: ${JSON.stringify(latency)}`);
    const { execFileSync } = await import('node:child_process');
    const figures: SharedServiceFigures = {
      date: new Date().toISOString().slice(0, 10),
      command: `node lib/bench/shared-service.js${values.samples !== '100' ? ` --samples ${values.samples}` : ''}`,
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(),
      codec,
      mcp,
      latency,
    };
    const text = `${JSON.stringify(figures, null, 2)}\n`;
    process.stdout.write(text);
    if (values.out) writeFileSync(values.out, text);
  } finally {
    dev.child.kill('SIGTERM');
    await dev.exited;
  }
}

void main().catch((err: unknown) => {
  say(`shared-service: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
});
