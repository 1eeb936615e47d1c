/**
 * A section of docs/BENCHMARKS.md that one measurement owns (the long tasks, the large graph): each
 * server's last figures are kept next to the report as JSON, and the section is rebuilt from them, so
 * a dev-server run keeps the cluster's column and `npm run bench` keeps the section.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export type ServerKind = 'dev' | 'cluster';

/** The `q` quantile of `xs` (nearest rank), NaN for none. */
export const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};

/** A latency's median and 99th percentile, in ms. */
export interface Span {
  p50: number;
  p99: number;
}

/** The span of samples `xs`. */
export const spanOf = (xs: number[]): Span => ({ p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) });

/** A span as a report cell: `p50 / p99 ms`. */
export const msOf = (s: Span): string => `${s.p50.toFixed(0)} / ${s.p99.toFixed(0)} ms`;

export interface SectionRun {
  date: string;
  command: string;
}

export interface ReportSection<F extends SectionRun> {
  /** The JSON files' middle name: `BENCHMARKS.<name>.<server>.json`. */
  name: string;
  marks: readonly [string, string];
  /** The section goes right after this mark when the report has it, else at the end. */
  after: string;
  /** The section's title and text, above its table. */
  heading: string[];
  rows: [label: string, show: (f: F) => string][];
}

function runsOf<F extends SectionRun>(out: string, s: ReportSection<F>): Partial<Record<ServerKind, F>> {
  const read = (kind: ServerKind): F | undefined => {
    const file = `${out.replace(/\.md$/, '')}.${s.name}.${kind}.json`;
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as F) : undefined;
  };
  return { dev: read('dev'), cluster: read('cluster') };
}

function lines<F extends SectionRun>(s: ReportSection<F>, runs: Partial<Record<ServerKind, F>>): string[] {
  const kinds = ['dev', 'cluster'] as const;
  const row = ([label, show]: ReportSection<F>['rows'][number]): string =>
    `| ${label} | ${kinds.map((k) => (runs[k] ? show(runs[k] as F) : 'not measured yet')).join(' | ')} |`;
  return [
    s.marks[0],
    ...s.heading,
    '',
    '| Figure | Dev server | Real cluster |',
    '|---|---|---|',
    ...s.rows.map(row),
    '',
    `Runs: ${kinds.flatMap((k) => (runs[k] ? [`${k} \`${runs[k]?.command}\` on ${runs[k]?.date}`] : [])).join('; ')}.`,
    s.marks[1],
  ];
}

/** `text` with the section rebuilt from the figures kept next to `out`. */
export function withSection<F extends SectionRun>(out: string, s: ReportSection<F>, text: string): string {
  const runs = runsOf(out, s);
  let whole = text;
  const from = whole.indexOf(s.marks[0]);
  const to = whole.indexOf(s.marks[1]);
  if (from >= 0 && to > from) whole = whole.slice(0, from) + whole.slice(to + s.marks[1].length).replace(/^\n+/, '');
  if (!runs.dev && !runs.cluster) return whole;
  const at = whole.indexOf(s.after);
  const block = `${lines(s, runs).join('\n')}\n`;
  return at >= 0
    ? `${whole.slice(0, at + s.after.length)}\n\n${block}${whole.slice(at + s.after.length).replace(/^\n*/, '\n')}`
    : `${whole.trimEnd()}\n\n${block}`;
}

/** Keeps `figures` next to `out` and rewrites the section of `out`. */
export function writeSection<F extends SectionRun>(out: string, s: ReportSection<F>, kind: ServerKind, figures: F): void {
  writeFileSync(`${out.replace(/\.md$/, '')}.${s.name}.${kind}.json`, `${JSON.stringify(figures, null, 1)}\n`);
  writeFileSync(out, withSection(out, s, existsSync(out) ? readFileSync(out, 'utf8') : ''));
}
