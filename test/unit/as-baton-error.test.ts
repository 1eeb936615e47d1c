/**
 * How Temporal's failures become Baton's: a Query nobody answers names the missing worker.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '@temporalio/client';
import { asBatonError } from '../../src/errors/as-baton-error';
import { NoWorkerError } from '../../src/errors/temporal-errors';

const grpc = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details });

describe('Temporal failures as Baton errors', () => {
  it('a Query with no worker, or whose worker just left, is NoWorkerError', () => {
    const noPoller = new ServiceError('Failed to query Workflow', {
      cause: grpc(9, 'FAILED_PRECONDITION: no poller seen for task queue recently'),
    });
    assert.ok(asBatonError(noPoller) instanceof NoWorkerError);
    const gaveUp = new ServiceError('Failed to query Workflow', { cause: grpc(1, 'CANCELLED: context canceled') });
    assert.ok(asBatonError(gaveUp) instanceof NoWorkerError);
    // Another call cancelled is not about a worker.
    const other = new ServiceError('Failed to start Workflow', { cause: grpc(1, 'CANCELLED: context canceled') });
    assert.ok(!(asBatonError(other) instanceof NoWorkerError));
  });
});
