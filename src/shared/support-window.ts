/**
 * Which earlier releases' workflows this release runs: delegations and graphs started by
 * `OLDEST_SUPPORTED` or later. Older histories took branches this code no longer has, so a worker
 * refuses them with one message rather than a nondeterminism error (decision 0033).
 */
import { BATON_VERSION } from './baton-version';

/** The oldest Baton version whose delegations and graphs this release replays. */
export const OLDEST_SUPPORTED = '0.9.0';

/** `a` compared with `b` as semantic versions (major.minor.patch; anything after is ignored). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[.+-]/, 3).map((n) => Number.parseInt(n, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** Whether a workflow started by Baton `startedBy` is one this release may run (absent: not started by Baton's starters). */
export function inSupportWindow(startedBy: string | undefined): boolean {
  return startedBy === undefined || compareVersions(startedBy, OLDEST_SUPPORTED) >= 0;
}

/**
 * Why this worker will not run a workflow that Baton `startedBy` started, or undefined when it will.
 * The text is what an operator sees on the workflow task that failed: what happened and what to do.
 */
export function refuseOutsideWindow(kind: 'delegation' | 'graph', startedBy: string | undefined): string | undefined {
  if (inSupportWindow(startedBy)) return undefined;
  return (
    `this ${kind} was started by Baton ${startedBy}; Baton ${BATON_VERSION} runs ${kind}s started by ${OLDEST_SUPPORTED} or later. ` +
    `Run it to its end on a ${OLDEST_SUPPORTED} worker (on another task queue or before upgrading); \`baton upgrade-check\` lists every such workflow`
  );
}
