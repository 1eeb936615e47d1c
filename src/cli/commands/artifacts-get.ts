/**
 * `baton artifacts get <ref>`: the bytes of an artifact stored by reference, from the store the config
 * names (a folder, or the object store every host shares), checked against their digest.
 */
import { writeFileSync } from 'node:fs';
import { configuredStore } from '../../artifacts/configured-store';
import { isRef } from '../../artifacts/store';
import { loadConfig } from '../../config/load';
import { BatonError } from '../../shared/baton-error';

export async function artifactsGetCommand(ref: string, opts: { output?: string; config?: string }): Promise<number> {
  if (!isRef(ref))
    throw new BatonError('InvalidRequest', `${ref} is not an artifact reference: give the ref of the record, sha256:<64 hex>`);
  const { config } = loadConfig(opts.config);
  const store = configuredStore(config);
  if (!(await store.has(ref))) throw new BatonError('NotFound', `no artifact ${ref} in the store ${store.where}`);
  const bytes = await store.get(ref);
  if (opts.output) {
    writeFileSync(opts.output, bytes);
    process.stderr.write(`${ref}: ${bytes.length} bytes written to ${opts.output}\n`);
  } else process.stdout.write(bytes);
  return 0;
}
