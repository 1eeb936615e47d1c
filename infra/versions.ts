/**
 * The installed version of a dependency, for the reports the campaign and the benchmarks write.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/runtime/project-root';

export function installedVersion(pkg: string): string {
  return (JSON.parse(readFileSync(join(projectRoot(), 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
}
