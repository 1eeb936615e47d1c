/** The configured ride-out of open streams (`api.streamRideOut`), with the default pauses. */
import { msToNumber } from '@temporalio/common';
import { DEFAULT_RIDE_OUT, type RideOut } from '../shared/ride-out';
import type { ApiConfig } from './schema';

export function rideOutOf(api: Pick<ApiConfig, 'streamRideOut'>): RideOut {
  return { ...DEFAULT_RIDE_OUT, rideOutMs: msToNumber(api.streamRideOut as `${number}s`) };
}
