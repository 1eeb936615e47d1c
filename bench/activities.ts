/**
 * The bare workflow's one activity.
 */
import { directCall } from './direct-call';

export async function callAgent(input: { baseUrl: string; text: string; messageId: string }): Promise<string> {
  return directCall(input.baseUrl, input.text, input.messageId);
}
