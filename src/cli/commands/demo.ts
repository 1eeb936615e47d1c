/**
 * `baton demo`: the whole path once. Starts a private stack (Temporal, the supplier-qa agent, a
 * worker), delegates one inspection check, prints the outcome, stops everything and exits.
 */
import { context, trace } from '@opentelemetry/api';
import { Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { BatonClient } from '../../client/baton-client';
import { BatonError } from '../../shared/baton-error';
import { dataConverterOption } from '../../codec/data-converter';
import { loadConfig } from '../../config/load';
import type { BatonConfig } from '../../config/schema';
import { supplierQa } from '../../demo/supplier-qa';
import { createLogger } from '../../runtime/logger';
import { startStack, type RunningStack } from '../../runtime/stack';
import { startTracing } from '../../telemetry/tracing';
import { exitCodeOf, formatRecord, printJson } from '../output';

export const DEMO_REQUEST = 'Please verify inspection report inspection-92 against purchase order A1042.';
/** What the demo's "person" answers when the agent asks for the serial number. */
export const DEMO_ANSWER = 'SN-4471';

export function interrupted(): Promise<never> {
  return new Promise((_resolve, reject) => {
    const stop = (signal: NodeJS.Signals): void => reject(new InterruptedError(signal));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

export class InterruptedError extends BatonError {
  constructor(signal: NodeJS.Signals) {
    super('Interrupted', `interrupted by ${signal}; everything the demo started has been stopped`);
  }
}

export async function demoCommand(opts: { json?: boolean; config?: string }): Promise<number> {
  const logger = createLogger({ app: 'baton-demo' });
  const { config } = loadConfig(opts.config);
  // Listen from the start: a signal during start-up must still end the wait below.
  const interruption = interrupted();
  let wasInterrupted = false;
  interruption.catch(() => (wasInterrupted = true));
  const tracing = startTracing(config.telemetry, 'demo', logger);
  const stack = await startStack({ config, logger, server: { uiPort: false }, agents: [supplierQa()] });
  // With tracing on, the whole demo is one trace: the start, the answer and the result under one span.
  const span = trace.getTracer('baton').startSpan('baton demo');
  try {
    return await context.with(trace.setSpan(context.active(), span), () =>
      runDemo(stack, config, logger, opts, interruption, () => wasInterrupted),
    );
  } finally {
    span.end();
    await stack.stop();
    await tracing?.shutdown();
  }
}

async function runDemo(
  stack: RunningStack,
  config: BatonConfig,
  logger: Logger,
  opts: { json?: boolean },
  interruption: Promise<never>,
  wasInterrupted: () => boolean,
): Promise<number> {
  const connection = await Connection.connect({ address: stack.server.address });
  try {
    const baton = new BatonClient(connection, {
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      caller: config.caller,
      ...dataConverterOption(config),
    });
    const id = await baton.start({ agent: 'supplier-qa', parts: [{ text: DEMO_REQUEST, mediaType: 'text/plain' }] });
    logger.info({ delegationId: id }, 'delegation started');
    // A Ctrl-C (or CI's SIGTERM) also reaches the worker through Temporal's Runtime, so waiting on
    // would never end: stop waiting, and let the finally blocks take the stack down.
    const asked = await Promise.race([baton.until(id, (r) => r.pending !== null || r.outcome !== undefined), interruption]);
    if (asked.pending?.kind === 'input') {
      const question = asked.pending.prompt.map((p) => p.text ?? '').join(' ');
      // The agent's words are data: printed quoted, never acted on.
      process.stderr.write(`agent asks (request ${asked.pending.requestId}): ${JSON.stringify(question)}\nanswering: ${DEMO_ANSWER}\n`);
      await Promise.race([baton.answer(id, asked.pending.requestId, [{ text: DEMO_ANSWER, mediaType: 'text/plain' }]), interruption]);
    }
    const record = await Promise.race([baton.result(id), interruption]);
    if (opts.json) printJson(record);
    else process.stdout.write(`\n${formatRecord(record)}\n\n`);
    return exitCodeOf(record);
  } finally {
    // 👉 After an interruption a client call may still be retrying; closing its channel under it
    // would crash the process from a timer. The process is about to exit anyway.
    if (!wasInterrupted()) await connection.close();
  }
}
