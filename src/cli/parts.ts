/**
 * Parts from the command line: `--text` as a text part, `--data-file` as a JSON data part.
 */
import { readFileSync } from 'node:fs';
import type { Part } from '../shared/a2a-types';
import { UsageError } from './usage-error';

/** `what` names the thing in the error when neither flag is given ("the work to delegate", "the answer"). */
export function partsFromFlags(opts: { text?: string; dataFile?: string }, what: string): Part[] {
  const parts: Part[] = [];
  if (opts.text) parts.push({ text: opts.text, mediaType: 'text/plain' });
  if (opts.dataFile) {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(opts.dataFile, 'utf8'));
    } catch (err) {
      throw new UsageError(`--data-file ${opts.dataFile}: ${(err as Error).message}`);
    }
    parts.push({ data, mediaType: 'application/json' });
  }
  if (!parts.length) throw new UsageError(`give ${what} with --text and/or --data-file`);
  return parts;
}
