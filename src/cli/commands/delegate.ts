/**
 * `baton delegate`: start a delegation; with `--wait`, wait for its outcome and print the record.
 */
import { rideOutOf } from '../../config/ride-out-config';
import { connectClient } from '../context';
import { printJson, reportSettled } from '../output';
import { partsFromFlags } from '../parts';
import { followDelegation } from '../progress';
import { UsageError } from '../usage-error';
import { refuseByConfig } from '../../config/data-use-rules';
import type { DataUse } from '../../shared/data-use';
import { DataUseSchema } from '../../shared/data-use-types';
import { describeIssues } from '../../config/load';

export interface DelegateOptions {
  agent: string;
  text?: string;
  dataFile?: string;
  policy?: string;
  id?: string;
  deadline?: string;
  maxWait?: string;
  context?: string;
  ref?: string[];
  /** A data label for every part (docs/data-use.md). */
  label?: string;
  /** Data-use terms for every part, as JSON. */
  terms?: string;
  wait?: boolean;
  json?: boolean;
  config?: string;
}

export async function delegateCommand(opts: DelegateOptions): Promise<number> {
  const dataUse = dataUseFromFlags(opts);
  const parts = partsFromFlags(opts, 'the work to delegate');
  const { baton, loaded, close } = await connectClient(opts.config);
  try {
    // What this machine's config already refuses is said now; the worker checks again with its own.
    const refused = refuseByConfig(loaded.config, opts.agent, parts, dataUse);
    if (refused) throw new UsageError(refused);
    const id = await baton.start({
      agent: opts.agent,
      parts,
      ...(dataUse ? { dataUse } : {}),
      policy: opts.policy,
      id: opts.id,
      contextId: opts.context,
      referenceTaskIds: opts.ref,
      ...(opts.deadline || opts.maxWait
        ? { contract: { ...(opts.deadline ? { deadline: opts.deadline } : {}), ...(opts.maxWait ? { maxWait: opts.maxWait } : {}) } }
        : {}),
    });
    if (!opts.wait) {
      if (opts.json) printJson({ id });
      else process.stdout.write(`started ${id}\nfollow it with: npx baton show ${id}\n`);
      return 0;
    }
    if (!opts.json) process.stderr.write(`started ${id}; waiting for the outcome (Ctrl-C stops waiting, not the delegation)…\n`);
    return reportSettled(await followDelegation(baton, id, { json: opts.json, rideOut: rideOutOf(loaded.config.api) }), opts.json);
  } finally {
    await close();
  }
}

/** `--label` and `--terms` as one data use for every part; malformed terms are a usage error. */
function dataUseFromFlags(opts: Pick<DelegateOptions, 'label' | 'terms'>): DataUse | undefined {
  if (opts.label === undefined && opts.terms === undefined) return undefined;
  let terms: unknown;
  if (opts.terms !== undefined) {
    try {
      terms = JSON.parse(opts.terms);
    } catch (err) {
      throw new UsageError(`--terms is not JSON: ${(err as Error).message}`);
    }
  }
  const parsed = DataUseSchema.safeParse({
    ...(opts.label !== undefined ? { label: opts.label } : {}),
    ...(terms !== undefined ? { terms } : {}),
  });
  if (!parsed.success) throw new UsageError(`--label/--terms: ${describeIssues(parsed.error).join('; ')}`);
  return parsed.data;
}
