/**
 * `baton answer`, `baton authorize`, `baton cancel`: steer a running delegation through its Updates,
 * as the caller the config (or BATON_TENANT / BATON_USER) names. The workflow's validators decide.
 */
import { connectClient } from '../context';
import { formatRecord, printJson } from '../output';
import { partsFromFlags } from '../parts';
import { UsageError } from '../usage-error';

/** The pending request's id, from the flag or from the delegation itself. */
async function requestIdOf(baton: Awaited<ReturnType<typeof connectClient>>['baton'], id: string, given?: string): Promise<string> {
  if (given) return given;
  const record = await baton.show(id);
  if (!record.pending) throw new UsageError(`delegation ${id} is not waiting for anything (status ${record.status})`);
  return record.pending.requestId;
}

export async function answerCommand(
  id: string,
  opts: { request?: string; text?: string; dataFile?: string; json?: boolean; config?: string },
): Promise<number> {
  const parts = partsFromFlags(opts, 'the answer');
  const { baton, close } = await connectClient(opts.config);
  try {
    const requestId = await requestIdOf(baton, id, opts.request);
    const sent = await baton.answer(id, requestId, parts);
    if (opts.json) printJson({ id, requestId, ...sent });
    else process.stdout.write(`answered ${requestId}; sent to the agent as ${sent.messageId}\n`);
    return 0;
  } finally {
    await close();
  }
}

export async function authorizeCommand(
  id: string,
  opts: { request?: string; credential?: string; json?: boolean; config?: string },
): Promise<number> {
  if (opts.credential === undefined) throw new UsageError("give --credential <name>: one of the credentials the agent's entry allows");
  const { baton, close } = await connectClient(opts.config);
  try {
    const requestId = await requestIdOf(baton, id, opts.request);
    const sent = await baton.authorize(id, requestId, opts.credential);
    if (opts.json) printJson({ id, requestId, credential: opts.credential, ...sent });
    else process.stdout.write(`authorized ${requestId} with credential ${opts.credential}; sent as ${sent.messageId}\n`);
    return 0;
  } finally {
    await close();
  }
}

export async function cancelCommand(id: string, opts: { reason?: string; json?: boolean; config?: string }): Promise<number> {
  const { baton, close } = await connectClient(opts.config);
  try {
    const record = await baton.cancel(id, opts.reason);
    if (opts.json) printJson(record);
    else process.stdout.write(`${formatRecord(record)}\n`);
    return 0;
  } finally {
    await close();
  }
}

export async function reviewCommand(
  id: string,
  opts: { request?: string; accept?: boolean; reject?: boolean; reason?: string; json?: boolean; config?: string },
): Promise<number> {
  if (opts.accept === opts.reject) throw new UsageError('give exactly one of --accept or --reject');
  const { baton, close } = await connectClient(opts.config);
  try {
    const requestId = await requestIdOf(baton, id, opts.request);
    const record = await baton.review(id, requestId, opts.accept ? 'accept' : 'reject', opts.reason);
    if (opts.json) printJson(record);
    else process.stdout.write(`${formatRecord(record)}\n`);
    return 0;
  } finally {
    await close();
  }
}
