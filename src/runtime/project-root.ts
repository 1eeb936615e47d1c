/**
 * The project's root folder (the one with Baton's package.json), from source or compiled code alike.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let cached: string | undefined;

export function projectRoot(): string {
  if (cached) return cached;
  let dir = __dirname;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'baton-a2a')
      return (cached = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find Baton's package.json above ${__dirname}`);
    dir = parent;
  }
}
