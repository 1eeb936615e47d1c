/**
 * A trace receiver that cannot be reached: the process goes on, and says so once as a warning with
 * the reason (not the exporter's stack), however many batches fail.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { startTracing } from '../../src/telemetry/tracing';

it('an unreachable receiver is one warning with the reason, and the spans are dropped', async () => {
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));

  const lines: { level: number; msg: string; traces?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  const tracing = startTracing({ traces: { endpoint: `http://127.0.0.1:${port}` } }, 'test', logger);
  assert.ok(tracing);
  try {
    for (let batch = 0; batch < 3; batch++) {
      trace.getTracer('test').startSpan(`span ${batch}`).end();
      await tracing.flush();
    }
    const warnings = lines.filter((l) => l.level === 40);
    assert.equal(warnings.length, 1, JSON.stringify(lines));
    assert.equal(warnings[0]?.msg, `traces could not be exported: connect ECONNREFUSED 127.0.0.1:${port}`);
    assert.equal(warnings[0]?.traces, `http://127.0.0.1:${port}/v1/traces`);
  } finally {
    await tracing.shutdown();
  }
});
