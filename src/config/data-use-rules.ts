/**
 * The data-use rules a config states (`dataUse`, each agent's `clearance`), in the shape the pure
 * checks of `src/shared/data-use.ts` take. The worker checks every turn with them; the CLI checks a
 * request with its own config first, to say at once what the worker would refuse.
 */
import {
  clearanceOf,
  DEFAULT_LABELS,
  DEFAULT_OPEN_LABEL,
  refuseData,
  withDataUse,
  type DataUse,
  type DataUseRules,
} from '../shared/data-use';
import type { Part } from '../shared/a2a-types';
import type { BatonConfig } from './schema';

export function dataUseRules(config: Pick<BatonConfig, 'agents'> & Partial<Pick<BatonConfig, 'dataUse'>>): DataUseRules {
  const use = config.dataUse;
  return {
    labels: use?.labels ?? DEFAULT_LABELS,
    open: use?.open ?? DEFAULT_OPEN_LABEL,
    ...(use?.unlabelled ? { unlabelled: use.unlabelled } : {}),
    agents: Object.entries(config.agents).map(([name, entry]) => ({ name, card: entry.card })),
  };
}

/** The labels agent `agent` is cleared for, or undefined when the config has no such agent. */
export function clearedFor(
  config: Pick<BatonConfig, 'agents'> & Partial<Pick<BatonConfig, 'dataUse'>>,
  agent: string,
): string[] | undefined {
  const entry = config.agents[agent];
  return entry ? clearanceOf(dataUseRules(config), entry.clearance) : undefined;
}

/**
 * What this config's rules refuse of `parts` (with `dataUse` for every part without its own) sent to
 * `agent`, or undefined: a caller says it at once, before the worker checks again with its own config.
 * An agent the config does not name is left to the caller's own check.
 */
export function refuseByConfig(
  config: Pick<BatonConfig, 'agents'> & Partial<Pick<BatonConfig, 'dataUse'>>,
  agent: string,
  parts: Part[],
  dataUse: DataUse | undefined,
): string | undefined {
  const cleared = clearedFor(config, agent);
  return cleared && refuseData(withDataUse(parts, dataUse), agent, cleared, dataUseRules(config));
}
