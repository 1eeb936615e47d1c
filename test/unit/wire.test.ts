import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamResponse as SdkStreamResponse, Task as SdkTask } from '@a2a-js/sdk';
import { ApplicationFailure } from '@temporalio/common';
import fc from 'fast-check';
import { toFailure } from '../../src/a2a/errors';
import { streamEventFromSdk, taskFromSdk } from '../../src/a2a/wire';
import { TASK_STATES } from '../../src/shared/a2a-types';
import { findOneofViolation } from '../../src/shared/wire-checks';

const validTask = {
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } },
  artifacts: [{ artifactId: 'a1', name: 'verdict', parts: [{ data: { text: 'user data may say anything', url: 'x' } }] }],
};

/** The boundary as an activity runs it: the SDK reads the JSON, we validate, errors become failures. */
function throughBoundary<T>(read: () => T): { ok: T } | { failure: ApplicationFailure } {
  try {
    return { ok: read() };
  } catch (err) {
    return { failure: toFailure(err, 'test') };
  }
}

/** Replaces one value somewhere in a JSON tree. */
const mutate = (base: unknown) =>
  fc.tuple(fc.nat(), fc.jsonValue()).map(([pick, replacement]) => {
    const copy = JSON.parse(JSON.stringify(base)) as unknown;
    const slots: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach((c, i) => (slots.push({ parent: v, key: i }), walk(c)));
      else if (v && typeof v === 'object')
        Object.entries(v).forEach(([k, c]) => (slots.push({ parent: v as Record<string, unknown>, key: k }), walk(c)));
    };
    walk(copy);
    const slot = slots[pick % slots.length];
    if (slot) (slot.parent as Record<string | number, unknown>)[slot.key] = replacement;
    return copy;
  });

describe('wire boundary (property-based)', () => {
  it('a mutated task is either a valid task or a typed failure, never a false success', () => {
    fc.assert(
      fc.property(fc.oneof(mutate(validTask), fc.jsonValue()), (json) => {
        const result = throughBoundary(() => taskFromSdk(SdkTask.fromJSON(json)));
        if ('failure' in result) {
          assert.ok(result.failure instanceof ApplicationFailure);
          return;
        }
        assert.ok((TASK_STATES as readonly string[]).includes(result.ok.status.state));
        assert.ok(result.ok.id.length > 0 && result.ok.contextId.length > 0);
        for (const a of result.ok.artifacts ?? []) assert.ok(a.artifactId && a.parts.length > 0);
      }),
      { numRuns: 2_000 },
    );
  });

  it('a mutated stream event is one valid member or a typed failure', () => {
    const event = { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } };
    fc.assert(
      fc.property(fc.oneof(mutate(event), fc.jsonValue()), (json) => {
        const result = throughBoundary(() => streamEventFromSdk(SdkStreamResponse.fromJSON(json)));
        if ('ok' in result) assert.equal(Object.keys(result.ok).length, 1);
      }),
      { numRuns: 2_000 },
    );
  });

  it('finds several oneof members at once, but not inside data or metadata', () => {
    assert.equal(findOneofViolation(validTask), undefined);
    assert.match(
      findOneofViolation({ result: { task: validTask, message: { messageId: 'm' } } }) ?? '',
      /^\$\.result has task and message at once/,
    );
    assert.match(
      findOneofViolation({ ...validTask, artifacts: [{ artifactId: 'a', parts: [{ text: 'a', raw: 'YQ==' }] }] }) ?? '',
      /^\$\.artifacts\[0\]\.parts\[0\] has text and raw at once/,
    );
    assert.equal(findOneofViolation({ metadata: { text: 'a', url: 'b' } }), undefined);
  });
});

describe("gRPC's own statuses", () => {
  const grpcError = (code: number, text: string): Error => Object.assign(new Error(`${code} ${text}`), { code, details: text });
  it('maps them onto the failure taxonomy: auth refused, refused, too large, or try later', () => {
    const auth = toFailure(grpcError(16, 'UNAUTHENTICATED: send a token'), 'agent a: SendMessage');
    assert.equal(auth.type, 'AgentRefused');
    assert.deepEqual(auth.details?.[0], { reason: 'AUTH_REFUSED', grpcCode: 16 });
    assert.equal(toFailure(grpcError(12, 'UNIMPLEMENTED'), 'x').type, 'AgentRefused');
    const large = toFailure(grpcError(8, 'RESOURCE_EXHAUSTED: Received message larger than max (5000000 vs 4194304)'), 'x');
    assert.equal(large.type, 'InvalidAgentResponse');
    const down = toFailure(grpcError(14, 'UNAVAILABLE: No connection established'), 'x');
    assert.equal(down.type, 'RetryLater');
    assert.equal(down.nonRetryable, false);
  });
});
