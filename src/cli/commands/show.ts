/**
 * `baton show <id>`: one delegation's record, live while it runs.
 */
import { connectClient } from '../context';
import { formatRecord, printJson } from '../output';

export async function showCommand(id: string, opts: { json?: boolean; config?: string }): Promise<number> {
  const { baton, close } = await connectClient(opts.config);
  try {
    const record = await baton.show(id);
    if (opts.json) printJson(record);
    else process.stdout.write(`${formatRecord(record)}\n`);
    return 0;
  } finally {
    await close();
  }
}
