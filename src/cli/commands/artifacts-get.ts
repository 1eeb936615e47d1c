/**
 * `baton artifacts get <ref>`: the bytes of an artifact stored by reference, from the store the config
 * names (a folder, or the object store every host shares), checked against their digest. Only for a
 * caller whose tenant has a delegation that holds the artifact (the store's reference index says
 * which do): another tenant's artifact is not found, as a missing one.
 */
import { writeFileSync } from 'node:fs';
import { configuredStore } from '../../artifacts/configured-store';
import { isRef } from '../../artifacts/store';
import { BatonError } from '../../shared/baton-error';
import { connectClient } from '../context';

export async function artifactsGetCommand(ref: string, opts: { output?: string; config?: string }): Promise<number> {
  if (!isRef(ref))
    throw new BatonError('InvalidRequest', `${ref} is not an artifact reference: give the ref of the record, sha256:<64 hex>`);
  const { loaded, baton, close } = await connectClient(opts.config);
  try {
    const store = configuredStore(loaded.config);
    const tenant = loaded.config.caller.tenant;
    const notFound = new BatonError('NotFound', `no artifact ${ref} for tenant ${tenant} in the store ${store.where}`);
    if (!(await store.has(ref))) throw notFound;
    const holders = await store.holders(ref);
    let own = false;
    for (const holder of holders) if (!own) own = await baton.owns(holder);
    if (!own) throw notFound;
    const bytes = await store.get(ref);
    if (opts.output) {
      writeFileSync(opts.output, bytes);
      process.stderr.write(`${ref}: ${bytes.length} bytes written to ${opts.output}\n`);
    } else process.stdout.write(bytes);
    return 0;
  } finally {
    await close();
  }
}
