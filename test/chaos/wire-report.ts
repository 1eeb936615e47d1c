/**
 * The "Faults on the wire" section of docs/RELIABILITY.md: written by the whole campaign, or alone by
 * `npm run chaos -- --only wire`, which replaces just this section of the file.
 */
import { installedVersion as version } from '../../infra/versions';
import { TOXIPROXY_VERSION } from '../../infra/toxiproxy';
import type { WireOptions, WireReport } from './wire-faults';

export const WIRE_HEADING = '## Faults on the wire';

const zero = (n: number): string => (n === 0 ? '0 ✅' : `${n} ❌`);
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The section's lines, from its heading to the blank line after its notes. */
export function wireSection(reports: WireReport[], opts: WireOptions & { command: string; tookMs: number }): string[] {
  const total = (k: 'lost' | 'duplicates' | 'wrongOutcomes'): number => reports.reduce((n, r) => n + r[k], 0);
  return [
    WIRE_HEADING,
    '',
    `Toxiproxy ${TOXIPROXY_VERSION} (built from the Go module proxy) on each link, one link at a time: between the worker and two fault agents (one polled, one that streams a 20 KB artifact; no faults of their own, each task works 1.5 s), between the worker and the Temporal frontend, and between A2A callers (the official JS client, ${version('@a2a-js/sdk')}, each call bounded at 5 s and retried with the same messageId) and a Baton-served gateway. Each scenario starts ${Math.ceil(opts.perRun / 2)} delegations, puts the fault on, starts ${opts.perRun - Math.ceil(opts.perRun / 2)} more, keeps the fault on for ${seconds(opts.holdMs)} (the link that goes down stays down for its own time), takes it off and waits for every outcome; a delegation not settled ${seconds(opts.settleWithinMs)} after the fault cleared counts as lost. Measured on ${new Date().toISOString().slice(0, 10)} with \`${opts.command}\` (${Math.round(opts.tookMs / 60_000)} min).`,
    '',
    '| Link | Scenario | Delegations | Lost | Duplicate remote tasks | Wrong outcomes | Fault lasted | Last settled after it cleared |',
    '|---|---|---|---|---|---|---|---|',
    ...reports.map(
      (r) =>
        `| ${r.link} | ${r.scenario} | ${r.delegations} | ${zero(r.lost)} | ${zero(r.duplicates)} | ${zero(r.wrongOutcomes)} | ${seconds(r.faultMs)} | ${seconds(r.settleMs)} |`,
    ),
    `| **all** | | ${reports.reduce((n, r) => n + r.delegations, 0)} | ${zero(total('lost'))} | ${zero(total('duplicates'))} | ${zero(total('wrongOutcomes'))} | | |`,
    '',
    "- Duplicate remote tasks are counted at the agents (more than one task for one first-turn messageId) and, for the served gateway, also at the callers (more than one task id for one caller's messageId).",
    "- A response cut by `reset_peer` reaches the agent and is lost on the way back: the retried send looks for its turn (ListTasks) before sending again. A half-open link holds a call until its own timeout (the agent entry's `limits.callTimeoutMs` or `readTimeoutMs`, the activity's heartbeat timeout for a read, the caller's own bound); Temporal's gRPC client notices a dead frontend connection and dials again.",
    '- "Last settled after it cleared" is 0.0 s when every delegation had settled while the fault was still on (latency, bandwidth and slicer slow the wire down without breaking it): what is left is the time to read the outcomes.',
    '',
  ];
}

/** `doc` with its section headed `heading` replaced by `lines` (or added after the crash figures, before the fuzzing). */
export function spliceSection(doc: string, heading: string, lines: string[]): string {
  const all = doc.split('\n');
  const start = all.indexOf(heading);
  if (start >= 0) {
    const next = all.findIndex((l, i) => i > start && l.startsWith('## '));
    all.splice(start, (next < 0 ? all.length : next) - start, ...lines);
    return all.join('\n');
  }
  const before = all.indexOf('## Fuzzing every boundary');
  all.splice(before < 0 ? all.length : before, 0, ...lines);
  return all.join('\n');
}

/** The lines of `doc`'s section headed `heading`, up to the next section; undefined when it has none. */
export function sectionOf(doc: string, heading: string): string[] | undefined {
  const all = doc.split('\n');
  const start = all.indexOf(heading);
  if (start < 0) return undefined;
  const next = all.findIndex((l, i) => i > start && l.startsWith('## '));
  return all.slice(start, next < 0 ? all.length : next);
}
