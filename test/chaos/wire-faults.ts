/**
 * Faults on the wire, measured: Toxiproxy between the worker and the agents, between the worker and the
 * Temporal frontend, and between callers and Baton's served agents, each scenario with delegations in
 * flight (half started before the fault, half during it). Counted: lost delegations, duplicate remote
 * tasks, wrong outcomes (each must be 0), and how long after the fault cleared the last one settled.
 */
import { FaultAgent } from '../../infra/fault-agent';
import { startToxiproxy, type Faultable, type ProxiedLink, type RunningToxiproxy, type Toxic } from '../../infra/toxiproxy';
import type { BatonClient } from '../../src/client/baton-client';
import { loopbackAgentEntry, type AgentEntry } from '../../src/config/schema';
import { freePort } from '../../src/runtime/free-port';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { batonFor, testServer, withWorker, type TestWorkerContext } from '../helpers/temporal';
import { servedCallers, type ServedCaller } from './wire-callers';

export type WireLink = 'worker → agents' | 'worker → Temporal frontend' | 'callers → served agents' | 'worker → object store';

export interface WireScenario {
  name: string;
  /** The toxic, on what the far side answers; none for a link that goes down. */
  toxic?: Toxic;
  /** The link is down (every connection closed, none accepted) this long, then back. */
  downMs?: number;
}

/** The scenarios of issue #44, in order. `downMs`: how long the link stays down in the last one. */
export function wireScenarios(downMs = 30_000): WireScenario[] {
  return [
    { name: 'latency 500 ms ± 400 ms', toxic: { type: 'latency', attributes: { latency: 500, jitter: 400 } } },
    { name: 'bandwidth 10 KB/s', toxic: { type: 'bandwidth', attributes: { rate: 10 } } },
    // Each response's first bytes reset the connection: the far side acted, the answer never arrives.
    { name: 'reset_peer mid-response', toxic: { type: 'reset_peer', attributes: { timeout: 0 } } },
    // Half-open: connections stay up and every byte back is dropped.
    { name: 'timeout (half-open)', toxic: { type: 'timeout', attributes: { timeout: 0 } } },
    // Responses in pieces of 1 to 16 bytes, 1 ms apart.
    { name: 'slicer (tiny pieces)', toxic: { type: 'slicer', attributes: { average_size: 8, size_variation: 7, delay: 1_000 } } },
    { name: `link down ${downMs / 1000} s, then back`, downMs },
  ];
}

export interface WireReport {
  link: WireLink;
  scenario: string;
  delegations: number;
  lost: number;
  duplicates: number;
  wrongOutcomes: number;
  /** How long the fault lasted. */
  faultMs: number;
  /** From the fault's end to the last delegation settled (0 when all settled during it). */
  settleMs: number;
}

export interface WireOptions {
  /** Delegations per scenario (half before the fault, half during it). */
  perRun: number;
  /** How long a toxic stays on. */
  holdMs: number;
  /** A delegation not settled this long after the fault cleared is lost. */
  settleWithinMs: number;
}

type Settle = (id: string) => Promise<{ ok: boolean } | undefined>;

/** The fault on `link` for `scenario`, while `during` runs; resolves with when it cleared. */
async function withFault(link: Faultable, scenario: WireScenario, holdMs: number, during: () => Promise<void>): Promise<number> {
  if (scenario.toxic) await link.add('fault', scenario.toxic);
  else await link.setEnabled(false);
  const began = Date.now();
  await during();
  const left = (scenario.downMs ?? holdMs) - (Date.now() - began);
  if (left > 0) await new Promise((r) => setTimeout(r, left));
  if (scenario.toxic) await link.remove('fault');
  else await link.setEnabled(true);
  return Date.now();
}

/** One scenario: starts delegations around the fault, then waits for every one of them. */
export async function faultRun(
  link: WireLink,
  proxied: Faultable,
  scenario: WireScenario,
  opts: WireOptions,
  start: (i: number) => Promise<string>,
  settle: Settle,
  duplicates: () => number,
): Promise<WireReport> {
  const duplicatesBefore = duplicates();
  const half = Math.ceil(opts.perRun / 2);
  const ids: Promise<string>[] = Array.from({ length: half }, (_, i) => start(i));
  await Promise.all(ids);
  const faultStarted = Date.now();
  const cleared = await withFault(proxied, scenario, opts.holdMs, async () => {
    for (let i = half; i < opts.perRun; i++) ids.push(start(i));
  });
  const settled = await Promise.all(
    ids.map(async (id) => {
      const outcome = await settleWithin(settle(await id), cleared + opts.settleWithinMs - Date.now());
      return { outcome, at: Date.now() };
    }),
  );
  return {
    link,
    scenario: scenario.name,
    delegations: opts.perRun,
    lost: settled.filter((s) => !s.outcome).length,
    duplicates: duplicates() - duplicatesBefore,
    wrongOutcomes: settled.filter((s) => s.outcome && !s.outcome.ok).length,
    faultMs: cleared - faultStarted,
    settleMs: Math.max(0, ...settled.map((s) => s.at - cleared)),
  };
}

async function settleWithin<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), Math.max(0, ms))));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

export const accepted = async (baton: BatonClient, id: string): Promise<{ ok: boolean }> => {
  const record: DelegationRecord = await baton.result(id);
  return { ok: record.outcome?.kind === 'ACCEPTED' };
};

/** Two agents behind the proxy: one polled, one that streams its (20 KB) artifact. */
async function proxiedAgents(toxiproxy: RunningToxiproxy, seed: number): Promise<{ agents: FaultAgent[]; links: ProxiedLink[] }> {
  const agents = [
    new FaultAgent('wire-desk', { workMs: 1_500, seed }),
    new FaultAgent('wire-stream', { workMs: 1_500, seed: seed + 1, streaming: true, artifactBytes: 20_000 }),
  ];
  const links: ProxiedLink[] = [];
  for (const agent of agents) {
    const port = await freePort();
    agent.publicUrl = `http://127.0.0.1:${port}`;
    await agent.start();
    links.push(await toxiproxy.link(agent.name, agent.url.replace('http://', ''), port));
  }
  return { agents, links };
}

const entries = (agents: { name: string; url: string }[]): Record<string, AgentEntry> =>
  Object.fromEntries(agents.map((a) => [a.name, loopbackAgentEntry(a.url, { observe: 'auto' })]));

/** Every scenario in turn on `proxied`, with delegations to `agents` (alternating) through a worker on `ctx`. */
async function delegationRuns(
  link: WireLink,
  proxied: Faultable,
  scenarios: WireScenario[],
  opts: WireOptions,
  ctx: TestWorkerContext,
  agents: FaultAgent[],
): Promise<WireReport[]> {
  const baton = batonFor(ctx);
  const reports: WireReport[] = [];
  for (const scenario of scenarios) {
    reports.push(
      await faultRun(
        link,
        proxied,
        scenario,
        opts,
        (i) => baton.start({ agent: agents[i % agents.length]?.name ?? '', parts: [{ text: `wire ${scenario.name} ${i}` }] }),
        (id) => accepted(baton, id),
        () => agents.reduce((n, a) => n + a.duplicateTasks, 0),
      ),
    );
  }
  return reports;
}

/** Worker → agents: both agents' links carry each fault at once. */
export async function agentLinkRuns(scenarios: WireScenario[], opts: WireOptions): Promise<WireReport[]> {
  const toxiproxy = await startToxiproxy();
  const { agents, links } = await proxiedAgents(toxiproxy, 20261205);
  try {
    return await withWorker(
      entries(agents.map((a, i) => ({ name: a.name, url: links[i]?.url ?? '' }))),
      (ctx) => delegationRuns('worker → agents', new AllLinks(links), scenarios, opts, ctx, agents),
      { poll: { initialMs: 100, maxMs: 1_000 } },
    );
  } finally {
    await Promise.all(agents.map((a) => a.close()));
    await toxiproxy.stop();
  }
}

/** Worker → Temporal frontend: the worker reaches the server only through the proxy; callers go direct. */
export async function frontendLinkRuns(scenarios: WireScenario[], opts: WireOptions): Promise<WireReport[]> {
  const { address } = await testServer();
  const toxiproxy = await startToxiproxy();
  const agents = [
    new FaultAgent('wire-desk', { workMs: 1_500, seed: 7 }),
    new FaultAgent('wire-stream', { workMs: 1_500, seed: 8, streaming: true }),
  ];
  await Promise.all(agents.map((a) => a.start()));
  try {
    const link = await toxiproxy.link('frontend', address);
    return await withWorker(entries(agents), (ctx) => delegationRuns('worker → Temporal frontend', link, scenarios, opts, ctx, agents), {
      poll: { initialMs: 100, maxMs: 1_000 },
      workerAddress: link.listen,
    });
  } finally {
    await Promise.all(agents.map((a) => a.close()));
    await toxiproxy.stop();
  }
}

/** Callers → served agents: A2A callers reach a served gateway only through the proxy, and retry as callers do. */
export async function servedLinkRuns(scenarios: WireScenario[], opts: WireOptions): Promise<WireReport[]> {
  const toxiproxy = await startToxiproxy();
  const agent = await new FaultAgent('wire-desk', { workMs: 1_500, seed: 9 }).start();
  try {
    return await servedCallers(toxiproxy, agent, async (caller: ServedCaller) => {
      const reports: WireReport[] = [];
      for (const scenario of scenarios) {
        reports.push(
          await faultRun(
            'callers → served agents',
            caller.link,
            scenario,
            opts,
            (i) => caller.start(`wire ${scenario.name} ${i}`),
            (id) => caller.settle(id),
            () => agent.duplicateTasks + caller.duplicateTasks(),
          ),
        );
      }
      return reports;
    });
  } finally {
    await agent.close();
    await toxiproxy.stop();
  }
}

/** Several links that carry each fault at once. */
class AllLinks implements Faultable {
  constructor(private readonly links: ProxiedLink[]) {}
  add(name: string, toxic: Toxic): Promise<void> {
    return Promise.all(this.links.map((l) => l.add(name, toxic))).then(() => undefined);
  }
  remove(name: string): Promise<void> {
    return Promise.all(this.links.map((l) => l.remove(name))).then(() => undefined);
  }
  setEnabled(enabled: boolean): Promise<void> {
    return Promise.all(this.links.map((l) => l.setEnabled(enabled))).then(() => undefined);
  }
}
