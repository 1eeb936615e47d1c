/** The ride-out of open streams: pauses that grow, capped, and an end once the outage lasted long enough. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RIDE_OUT, pauseBeforeRetry, rideOutEnded } from '../../src/shared/ride-out';

describe('riding out an outage', () => {
  const r = { rideOutMs: 10_000, firstPauseMs: 250, maxPauseMs: 2_000 };

  it('pauses longer after each failure, up to the cap', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => pauseBeforeRetry(r, 0, n, 0)),
      [250, 500, 1_000, 2_000, 2_000, 2_000],
    );
  });

  it('never pauses past the end of the ride-out, and ends there', () => {
    assert.equal(pauseBeforeRetry(r, 0, 4, 9_500), 500);
    assert.equal(pauseBeforeRetry(r, 0, 1, 10_000), undefined);
    assert.equal(pauseBeforeRetry(r, 0, 1, 60_000), undefined);
  });

  it('rides out two minutes by default, and says what goes on', () => {
    assert.equal(DEFAULT_RIDE_OUT.rideOutMs, 120_000);
    assert.equal(
      rideOutEnded(DEFAULT_RIDE_OUT, 'delegation dlg-1'),
      'Temporal has not answered for 120 s, so this stream ends; delegation dlg-1 goes on in Temporal: follow it again once the server is back',
    );
  });
});
