/**
 * `baton artifacts gc`: removes artifact bytes that no readable delegation or graph names any more.
 * A dry run unless `--apply`; the report says, per blob, what was decided and why.
 */
import { ago, type GcReport } from '../../artifacts/gc';
import { configuredStore } from '../../artifacts/configured-store';
import { loadConfig } from '../../config/load';
import { collectArtifactsIn } from '../../runtime/artifact-gc';
import { connectTemporalClient } from '../../runtime/connect';
import { printJson } from '../output';

const size = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} B`;

export function formatGcReport(report: GcReport, where: string): string {
  const lines = [`artifact store ${where}: ${report.blobs.length} blob(s), namespace retention ${ago(report.retentionMs)}`];
  for (const b of report.blobs) {
    const verdict = b.verdict === 'keep' ? 'keep  ' : report.applied ? 'removed' : 'remove';
    lines.push(`  ${verdict.padEnd(7)} ${b.ref.slice(0, 23)}…  ${size(b.size).padStart(9)}  ${b.reason}`);
  }
  const { kept, removed } = report;
  lines.push(
    report.applied
      ? `removed ${removed.count} blob(s), ${size(removed.bytes)}; kept ${kept.count}, ${size(kept.bytes)}`
      : `dry run: ${removed.count} blob(s), ${size(removed.bytes)}, would be removed; kept ${kept.count}, ${size(kept.bytes)}.` +
          (removed.count ? ' Run with --apply to remove them.' : ''),
  );
  return lines.join('\n');
}

export async function artifactsGcCommand(opts: { apply?: boolean; json?: boolean; config?: string }): Promise<number> {
  const { config } = loadConfig(opts.config);
  const store = configuredStore(config);
  const connection = await connectTemporalClient(config.temporal);
  try {
    const report = await collectArtifactsIn({ connection, namespace: config.temporal.namespace, store, apply: opts.apply });
    if (opts.json) printJson({ store: store.where, namespace: config.temporal.namespace, ...report });
    else process.stdout.write(`${formatGcReport(report, store.where)}\n`);
    return 0;
  } finally {
    await connection.close();
  }
}
