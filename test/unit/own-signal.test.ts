import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { withOwnSignal } from '../../src/client/own-signal';

/** What Temporal's connection does with a call's signal: a listener added, never removed. */
const leakyCall = (signal: AbortSignal): Promise<string> => {
  signal.addEventListener('abort', () => undefined);
  return Promise.resolve('answered');
};

describe('a signal of its own for each call', () => {
  it('leaves a long-lived signal without the listeners its calls add', async () => {
    const stream = new AbortController();
    for (let i = 0; i < 50; i++) assert.equal(await withOwnSignal(stream.signal, leakyCall), 'answered');
    assert.equal(getEventListeners(stream.signal, 'abort').length, 0);
    // Without it, each call's listener stays for as long as the signal lives.
    for (let i = 0; i < 3; i++) await leakyCall(stream.signal);
    assert.equal(getEventListeners(stream.signal, 'abort').length, 3);
  });

  it('aborts the call when the long-lived signal aborts, before or during it', async () => {
    const before = new AbortController();
    before.abort(new Error('gone'));
    assert.equal(await withOwnSignal(before.signal, (own) => Promise.resolve(own.aborted)), true);

    const during = new AbortController();
    const seen = await withOwnSignal(
      during.signal,
      (own) =>
        new Promise<string>((resolve) => {
          own.addEventListener('abort', () => resolve(`aborted: ${(own.reason as Error).message}`));
          during.abort(new Error('caller went away'));
        }),
    );
    assert.equal(seen, 'aborted: caller went away');
  });
});
