/**
 * Baton's Nexus service without a server: who an operation acts as (from the caller's link, by
 * configuration), the delegation a token names, the error table, the inputs, and the JSON Schema file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { HandlerError } from 'nexus-rpc';
import { generateWorkflowRunOperationToken } from '@temporalio/nexus/lib/token';
import { NexusSchema } from '../../src/config/schema';
import { toHandlerError } from '../../src/nexus/handler-errors';
import { CHECKED_IN_SCHEMA } from '../../src/nexus/service-schema';
import { linkedNamespaces, nexusCallerOf } from '../../src/nexus/nexus-caller';
import { DelegateInputSchema, StatusInputSchema } from '../../src/nexus/operation-schemas';
import { workflowIdOfToken } from '../../src/nexus/operation-token';
import { BatonError, ERROR_KIND_NAMES } from '../../src/shared/baton-error';
import { NEXUS_SCHEMA_FILE, nexusSchemaText } from '../../scripts/nexus-schema';

const link = (
  ns: string,
  rest = 'workflows/wf-1/run-1/history?referenceType=EventReference&eventID=5&eventType=NexusOperationScheduled',
) => ({
  url: new URL(`temporal:///namespaces/${encodeURIComponent(ns)}/${rest}`),
  type: 'temporal.api.common.v1.Link.WorkflowEvent',
});

const callers = NexusSchema.parse({
  callers: [
    { namespace: 'orders', tenant: 'acme', user: 'orders-app' },
    { namespace: 'billing.prod', tenant: 'globex', userHeader: 'baton-user' },
  ],
}).callers;

describe('the Nexus caller', () => {
  it('is the tenant its namespace maps to, read from the link the server attaches', () => {
    assert.deepEqual(nexusCallerOf([link('orders')], {}, callers), { caller: { tenant: 'acme', user: 'orders-app' }, namespace: 'orders' });
    // No user configured: one named after the namespace.
    assert.deepEqual(nexusCallerOf([link('billing.prod')], {}, callers), {
      caller: { tenant: 'globex', user: 'nexus:billing.prod' },
      namespace: 'billing.prod',
    });
  });

  it('takes a user from the header only where the operator allows it, and only a well-formed one', () => {
    assert.deepEqual(nexusCallerOf([link('billing.prod')], { 'Baton-User': 'ana@globex' }, callers), {
      caller: { tenant: 'globex', user: 'ana@globex' },
      namespace: 'billing.prod',
    });
    // The header never moves a caller to another tenant, and is ignored where not allowed.
    assert.deepEqual(nexusCallerOf([link('orders')], { 'baton-user': 'mallory' }, callers), {
      caller: { tenant: 'acme', user: 'orders-app' },
      namespace: 'orders',
    });
    const bad = nexusCallerOf([link('billing.prod')], { 'baton-user': 'two words' }, callers);
    assert.match('refusal' in bad ? bad.refusal : '', /header baton-user must be a user name/);
  });

  it('refuses an unmapped namespace, a start with no caller link, and links into two namespaces', () => {
    const said = (r: ReturnType<typeof nexusCallerOf>): string => ('refusal' in r ? r.refusal : 'accepted');
    assert.match(said(nexusCallerOf([link('strangers')], {}, callers)), /namespace "strangers" is not a Baton caller; .*nexus\.callers/);
    assert.match(said(nexusCallerOf([], {}, callers)), /no link to a calling workflow/);
    assert.match(said(nexusCallerOf([link('orders'), link('billing.prod')], {}, callers)), /2 namespaces/);
    // Links of another scheme name nobody.
    assert.deepEqual(linkedNamespaces([{ url: new URL('https://example.test/namespaces/orders/x') }]), []);
    assert.deepEqual(linkedNamespaces([link('orders'), link('orders', 'nexus-operations/op/run/details')]), ['orders']);
  });

  it('is configured with each namespace once', () => {
    const twice = NexusSchema.safeParse({ callers: [callers[0], { namespace: 'orders', tenant: 'other' }] });
    assert.equal(twice.success, false);
    assert.match(JSON.stringify(twice.error?.issues), /orders is listed twice/);
    assert.equal(NexusSchema.safeParse({ endpoint: 'has space' }).success, false);
    assert.equal(NexusSchema.parse({}).endpoint, 'baton');
  });
});

describe('Nexus operations', () => {
  it('name a delegation by id or by the delegate operation token', () => {
    assert.equal(workflowIdOfToken(generateWorkflowRunOperationToken('baton', 'acme:nexus-abc')), 'acme:nexus-abc');
    assert.equal(workflowIdOfToken('acme:dlg-1'), undefined);
    assert.equal(
      workflowIdOfToken(Buffer.from('{"t":3,"wid":"x","uid":"u"}').toString('base64url')),
      undefined,
      'an Update token is not a delegation',
    );
    assert.equal(workflowIdOfToken(Buffer.from('not json at all').toString('base64url')), undefined);
  });

  it('map every Baton error kind to a Nexus handler error that retries only what a retry can fix', () => {
    const retryable = Object.fromEntries(
      ERROR_KIND_NAMES.map((kind) => {
        const mapped = toHandlerError(new BatonError(kind, `said ${kind}`));
        assert.equal(mapped.message, `said ${kind}`);
        return [kind, `${mapped.type}${mapped.retryable ? ' (retried)' : ''}`];
      }),
    );
    assert.deepEqual(retryable, {
      InvalidRequest: 'BAD_REQUEST',
      Unauthorized: 'UNAUTHENTICATED',
      Forbidden: 'UNAUTHORIZED',
      NotFound: 'NOT_FOUND',
      Refused: 'CONFLICT',
      PayloadTooLarge: 'BAD_REQUEST',
      RateLimited: 'RESOURCE_EXHAUSTED (retried)',
      ConfigInvalid: 'INTERNAL (retried)',
      Unavailable: 'UNAVAILABLE (retried)',
      Interrupted: 'UNAVAILABLE (retried)',
      Internal: 'INTERNAL (retried)',
    });
    const unknown = toHandlerError(new TypeError('secret detail'));
    assert.equal(unknown.type, 'INTERNAL');
    assert.doesNotMatch(unknown.message, /secret detail/, 'a bug says to look at the worker log, not its text');
    const own = new HandlerError('UNAUTHORIZED', 'x');
    assert.equal(toHandlerError(own), own);
  });

  it('check their inputs as the HTTP API does', () => {
    assert.equal(DelegateInputSchema.safeParse({ agent: 'supplier-qa', text: 'x' }).success, true);
    assert.equal(DelegateInputSchema.safeParse({ agent: 'supplier-qa' }).success, false, 'text or parts');
    assert.equal(
      DelegateInputSchema.safeParse({ agent: 'supplier-qa', text: 'x', id: 'mine' }).success,
      false,
      'the key is idempotencyKey',
    );
    assert.equal(DelegateInputSchema.safeParse({ agent: 'supplier-qa', text: 'x', idempotencyKey: 'a b' }).success, false);
    assert.equal(
      StatusInputSchema.safeParse({ delegation: 'acme:x', waitFor: 'pending', maxWaitSeconds: 10 }).success,
      false,
      'inside 10 s',
    );
  });

  it('are described by the checked-in JSON Schema (npm run nexus-schema writes it)', () => {
    assert.equal(readFileSync(NEXUS_SCHEMA_FILE, 'utf8'), nexusSchemaText());
    assert.deepEqual(CHECKED_IN_SCHEMA, JSON.parse(nexusSchemaText()), 'the copy the package ships is the same');
    const schema = JSON.parse(nexusSchemaText()) as { 'x-operations': Record<string, { mode: string }>; $defs: Record<string, unknown> };
    assert.deepEqual(Object.keys(schema['x-operations']).sort(), [
      'answer',
      'authorize',
      'cancel',
      'delegate',
      'review',
      'runGraph',
      'status',
    ]);
    assert.equal(schema['x-operations'].delegate?.mode, 'async');
    assert.equal(schema['x-operations'].status?.mode, 'sync');
    assert.doesNotMatch(nexusSchemaText(), /#\/components\//, 'every reference resolves inside the file');
    for (const ref of nexusSchemaText().match(/"#\/\$defs\/[A-Za-z]+"/g) ?? [])
      assert.ok(ref.slice(9, -1) in schema.$defs, `${ref} is defined`);
  });
});
