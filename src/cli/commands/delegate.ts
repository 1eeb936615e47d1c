/**
 * `baton delegate`: start a delegation; with `--wait`, wait for its outcome and print the record.
 */
import { rideOutOf } from '../../config/ride-out-config';
import { connectClient } from '../context';
import { printJson, reportSettled } from '../output';
import { partsFromFlags } from '../parts';
import { followDelegation } from '../progress';

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
  wait?: boolean;
  json?: boolean;
  config?: string;
}

export async function delegateCommand(opts: DelegateOptions): Promise<number> {
  const parts = partsFromFlags(opts, 'the work to delegate');
  const { baton, loaded, close } = await connectClient(opts.config);
  try {
    const id = await baton.start({
      agent: opts.agent,
      parts,
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
