/**
 * How the S3 store reads the object store's answers, without a network: a stand-in client answers
 * each call as a store would (the AWS SDK's error shapes), and the store must retry an outage, stop at
 * once on a refusal, and name a missing object. The real store runs in test/cluster/object-store.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { S3Client } from '@aws-sdk/client-s3';
import { ArtifactStoreMisconfiguredError, ArtifactStoreUnavailableError, S3ArtifactStore } from '../../src/artifacts/s3-store';
import { S3StoreSchema } from '../../src/config/schema';
import { BatonError } from '../../src/shared/baton-error';

const awsError = (name: string, status?: number, code?: string): Error =>
  Object.assign(new Error(name), { name, ...(code ? { code } : {}), ...(status ? { $metadata: { httpStatusCode: status } } : {}) });

/** A store whose client answers each call with the next of `answers` (an error is thrown). */
function storeAnswering(answers: unknown[], retryFor = '2s'): { store: S3ArtifactStore; calls: () => number } {
  let calls = 0;
  const client = {
    send: async () => {
      const next = answers[Math.min(calls, answers.length - 1)];
      calls += 1;
      if (next instanceof Error) throw next;
      return next;
    },
  } as unknown as S3Client;
  const store = new S3ArtifactStore({
    config: S3StoreSchema.parse({ bucket: 'baton-artifacts', endpoint: 'http://127.0.0.1:9', retryFor }),
    stagingDir: '/tmp/baton-unit-staging',
    client,
  });
  return { store, calls: () => calls };
}

const REF = `sha256:${'ab'.repeat(32)}` as const;

describe('S3 store, reading the store’s answers', () => {
  it('retries an unreachable store, then answers once it is back', async () => {
    const { store, calls } = storeAnswering([awsError('Error', undefined, 'ECONNREFUSED'), awsError('ServiceUnavailable', 503), {}]);
    assert.equal(await store.has(REF), true);
    assert.equal(calls(), 3);
  });

  it('gives up after retryFor with a typed error naming the store and the cause', async () => {
    const { store } = storeAnswering([awsError('Error', undefined, 'ECONNREFUSED')], '1s');
    await assert.rejects(
      store.has(REF),
      (err: unknown) =>
        err instanceof ArtifactStoreUnavailableError &&
        err.kind === 'Unavailable' &&
        /^artifact store s3:\/\/baton-artifacts\/ at http:\/\/127\.0\.0\.1:9 is unreachable \(ECONNREFUSED\); the delegation retries it/.test(
          err.message,
        ),
    );
  });

  it('stops at once on a refusal: wrong credentials, no access, a missing bucket', async () => {
    for (const [error, cause] of [
      [awsError('InvalidAccessKeyId', 403), 'InvalidAccessKeyId'],
      [awsError('AccessDenied', 403), 'AccessDenied'],
      [awsError('SignatureDoesNotMatch', 403), 'SignatureDoesNotMatch'],
    ] as const) {
      const { store, calls } = storeAnswering([error, {}]);
      await assert.rejects(
        store.has(REF),
        (err: unknown) => err instanceof ArtifactStoreMisconfiguredError && err.message.includes(`(${cause})`),
      );
      assert.equal(calls(), 1, `${cause} is not retried`);
    }
    const { store } = storeAnswering([awsError('NotFound', 404)]);
    await assert.rejects(
      store.check(),
      (err: unknown) => err instanceof ArtifactStoreMisconfiguredError && /NoSuchBucket/.test(err.message),
    );
  });

  it('tells a missing object from a broken store', async () => {
    assert.equal(await storeAnswering([awsError('NotFound', 404)]).store.has(REF), false);
    await assert.rejects(
      storeAnswering([awsError('NoSuchKey', 404)]).store.get(REF),
      (err: unknown) => err instanceof BatonError && err.kind === 'NotFound' && /get: not found \(NoSuchKey\)/.test(err.message),
    );
  });
});
