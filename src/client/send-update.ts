/**
 * Sends a workflow Update and turns Temporal's failures into the client's errors.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { RequestRefusedError } from './errors';

/**
 * Runs `call`; a validator's refusal becomes RequestRefusedError naming `what`. `exists` is called
 * when the server says "not found", to tell a closed workflow from a missing (or foreign) one: it
 * throws the right not-found error itself.
 */
export async function sendUpdate<T>(what: string, call: () => Promise<T>, exists: () => Promise<unknown>, tries = 5): Promise<T> {
  try {
    return await call();
  } catch (err) {
    // 👉 An Update that lands in the very workflow task that completes the workflow (or continues it as
    // new) is turned away by the server ("unexpected workflow task failure"); asked again a moment
    // later, it meets the settled workflow or the new run. A graph busy continuing as new can turn
    // away a few in a row: the pause doubles from 100 ms (1.5 s in all).
    if (tries > 1 && /unexpected workflow task failure/i.test(`${(err as Error)?.message} ${(err as { cause?: Error }).cause?.message}`)) {
      await new Promise((r) => setTimeout(r, 100 * 2 ** (5 - tries)));
      return sendUpdate(what, call, exists, tries - 1);
    }
    if (err instanceof WorkflowUpdateFailedError) throw new RequestRefusedError(`${what} refused: ${err.cause?.message ?? err.message}`);
    if (err instanceof WorkflowNotFoundError) {
      // The server answers an Update to a closed workflow itself, as "not found".
      await exists();
      throw new RequestRefusedError(`${what} refused: it has already settled`);
    }
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    if (cause && err instanceof Error && !err.message.includes(cause)) err.message = `${err.message}: ${cause}`;
    throw err;
  }
}
