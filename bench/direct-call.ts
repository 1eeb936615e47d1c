/**
 * The baseline: one SendMessage with the official SDK, blocking until the agent's task is done. Used
 * directly (no Temporal) and inside the bare workflow's one activity.
 */
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { userMessageToSdk } from '../src/a2a/wire';

const clients = new Map<string, Promise<Client>>();

function clientFor(baseUrl: string): Promise<Client> {
  let client = clients.get(baseUrl);
  if (!client) {
    client = new ClientFactory().createFromUrl(baseUrl);
    clients.set(baseUrl, client);
  }
  return client;
}

/** Sends `text` and waits for the agent's answer; returns the final task state. */
export async function directCall(baseUrl: string, text: string, messageId: string): Promise<string> {
  const client = await clientFor(baseUrl);
  const result = await client.sendMessage({
    tenant: '',
    message: userMessageToSdk({ messageId, parts: [{ text }] }),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: 0, returnImmediately: false },
    metadata: undefined,
  });
  const task = (result as { status?: { state?: unknown } }).status ? (result as { status: { state: unknown } }) : undefined;
  return String(task?.status.state ?? 'message');
}
