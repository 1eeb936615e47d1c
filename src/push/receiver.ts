/**
 * The webhook wired to Temporal: verified pushes become `batonPush` Signals to the delegation. Used
 * by `baton webhook` and by the stack behind `baton dev`.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load';
import { dataConverterOption } from '../codec/data-converter';
import { connectTemporalClient } from '../runtime/connect';
import type { TemporalSection } from '../config/temporal-target';
import { PushSchema, type BatonConfig, type PushConfig } from '../config/schema';
import { pushSignal } from '../../workflows/messages';
import { startWebhook, type RunningWebhook } from './webhook';

export interface PushReceiver {
  webhook: RunningWebhook;
  /** The push section workers must use to register this receiver. */
  push: PushConfig;
  close(): Promise<void>;
}

/**
 * Starts the receiver for `config.push` (listening on `push.listen`). With `devDefaults`, a missing
 * push section or secret is made up for this process (the in-process worker shares it).
 */
export async function startPushReceiver(
  config: BatonConfig,
  /** Where Temporal is: the config's `temporal` section (TLS, API key, profile), or a bare address (the dev stack's). */
  temporal: TemporalSection | string | undefined,
  logger: Logger,
  opts: { devDefaults?: boolean; port?: number } = {},
): Promise<PushReceiver> {
  let push = config.push;
  const secretEnv = push?.secretFromEnv ?? 'BATON_PUSH_SECRET';
  if (!process.env[secretEnv]) {
    if (!opts.devDefaults)
      throw new ConfigError(`push: environment variable ${secretEnv} is not set`, [
        `set ${secretEnv} to the same random secret on the webhook and every worker`,
      ]);
    process.env[secretEnv] = randomBytes(32).toString('base64url');
  }
  if (!push && !opts.devDefaults)
    throw new ConfigError('the config has no push section', ['add push: { url: <the URL agents reach the webhook at> }']);
  const listen = push?.listen ?? { host: '127.0.0.1', port: opts.port ?? 41240 };
  const connection = await connectTemporalClient(temporal);
  const client = new Client({ connection, namespace: config.temporal.namespace, ...dataConverterOption(config) });
  let webhook: RunningWebhook;
  try {
    webhook = await startWebhook({
      host: listen.host,
      port: opts.port ?? listen.port,
      secret: process.env[secretEnv] ?? '',
      logger,
      deliver: (delegationId, taskId) => client.workflow.getHandle(delegationId).signal(pushSignal, { taskId }),
      ...(push?.rateLimit ? { rateLimit: push.rateLimit } : {}),
    });
  } catch (err) {
    await connection.close();
    throw err;
  }
  push ??= PushSchema.parse({ url: webhook.url, secretFromEnv: secretEnv });
  return {
    webhook,
    push,
    close: async () => {
      await webhook.close();
      await connection.close();
    },
  };
}
