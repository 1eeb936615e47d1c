/**
 * Push notifications to callers, without a server: the push workflow's book (what each webhook is owed,
 * what was given up on) and how a caller's config is checked and sealed before it reaches history.
 */
import assert from 'node:assert/strict';
import { fakeLookup } from '../helpers/lookup';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { ServePushSchema } from '../../src/config/schema';
import { CallerWebhooks } from '../../src/serve/caller-webhooks';
import { MAX_OWED, MAX_PUSH_TARGETS, TaskPushBook } from '../../src/shared/task-push-book';
import type { TaskChange } from '../../src/shared/task-push-types';

const at = '2026-12-04T10:00:00.000Z';
const change = (state: string, ended = false, messageId = ''): TaskChange => ({
  kind: 'changed',
  fingerprint: `${state}|${messageId}`,
  contextId: 'ctx-1',
  status: { state: state as never, timestamp: at },
  ended,
});
const target = (id: string) => ({ id, url: `https://hooks.example.com/${id}` });

describe('task push book', () => {
  it('owes a new webhook the task first, then each change it was not shown; the end as the task', () => {
    const book = new TaskPushBook('a2a-s-1');
    book.set(target('a'));
    // Seen before the first post: owed, unless that post shows it already.
    book.observed(change('TASK_STATE_WORKING'), at);
    assert.deepEqual(book.next('a')?.event, { seq: 1, kind: 'task' });
    book.delivered('a', 1, 'TASK_STATE_WORKING|');
    assert.equal(book.next('a'), undefined, 'the snapshot showed WORKING: not sent again');
    book.observed(change('TASK_STATE_INPUT_REQUIRED', false, 'req-1'), at);
    book.observed(change('TASK_STATE_COMPLETED', true), at);
    assert.equal(book.ended, true);
    const kinds: string[] = [];
    for (let next = book.next('a'); next; next = book.next('a')) {
      kinds.push(next.event.kind === 'task' ? 'task' : next.event.status.state);
      book.delivered('a', next.event.seq, next.event.fingerprint ?? '');
    }
    assert.deepEqual(kinds, ['TASK_STATE_INPUT_REQUIRED', 'task']);
    assert.equal(book.drained(), true);
    assert.equal(book.view().delivered, 3);
  });

  it('a change between the first post and the first look is never lost', () => {
    const book = new TaskPushBook('a2a-s-1');
    book.set(target('a'));
    // The snapshot was read while the task worked; the watch's first look already sees the question.
    book.delivered('a', 1, 'TASK_STATE_WORKING|');
    book.observed(change('TASK_STATE_INPUT_REQUIRED', false, 'req-1'), at);
    const next = book.next('a');
    assert.equal(next?.event.kind === 'status' ? next.event.status.state : next?.event.kind, 'TASK_STATE_INPUT_REQUIRED');
    // The same change again (a watch that restarted) is not owed twice.
    book.observed(change('TASK_STATE_INPUT_REQUIRED', false, 'req-1'), at);
    assert.equal(book.view().configs[0]?.owed, 1);
  });

  it('records what could not be delivered and goes on; a deleted webhook is owed nothing', () => {
    const book = new TaskPushBook('a2a-s-1');
    book.set(target('a'));
    book.set(target('b'));
    const first = book.next('a');
    assert.ok(first);
    book.failed('a', first.event, 'webhook answered 503', at);
    assert.deepEqual(book.view().undelivered, [{ configId: 'a', seq: 1, what: 'task', reason: 'webhook answered 503', at }]);
    assert.equal(book.next('a'), undefined);
    assert.equal(book.delete('b'), true);
    assert.equal(book.delete('b'), false);
    assert.equal(book.next('b'), undefined);
    assert.equal(book.drained(), true);
  });

  it('a replaced webhook keeps what it is owed; the count and the ids are bounded', () => {
    const book = new TaskPushBook('a2a-s-1');
    book.set(target('a'));
    book.set({ ...target('a'), url: 'https://hooks.example.com/moved' });
    assert.equal(book.next('a')?.target.url, 'https://hooks.example.com/moved');
    assert.equal(book.view().configs[0]?.owed, 1);
    for (let i = 1; i < MAX_PUSH_TARGETS; i++) book.set(target(`t${i}`));
    assert.match(book.refuseSet(target('one-more')) ?? '', /has 10 push configs already/);
    assert.equal(book.refuseSet(target('a')), undefined, 'replacing one is fine');
    assert.match(book.refuseSet({ id: 'bad id', url: 'https://x' }) ?? '', /id uses/);
    assert.match(book.refuseSet({ id: 'x', url: 'file:///etc/passwd' }) ?? '', /http\(s\) URL/);
  });

  it('a webhook owed too much loses the oldest, recorded; the book carries over whole', () => {
    const book = new TaskPushBook('a2a-s-1');
    book.set(target('a'));
    book.observed(change('TASK_STATE_WORKING'), at);
    for (let i = 0; i < MAX_OWED + 5; i++)
      book.observed(change(i % 2 ? 'TASK_STATE_WORKING' : 'TASK_STATE_INPUT_REQUIRED', false, `r${i}`), at);
    const view = book.view();
    assert.equal(view.configs[0]?.owed, MAX_OWED);
    assert.equal(view.undelivered.length, 7);
    assert.match(view.undelivered[0]?.reason ?? '', /oldest was dropped/);
    book.delivered('a', book.next('a')?.event.seq ?? 0, 'TASK_STATE_WORKING|r54');
    const again = new TaskPushBook('a2a-s-1', book.carry());
    assert.deepEqual(again.view(), book.view());
    assert.equal(book.view().configs[0]?.owed, MAX_OWED - 1);
    assert.deepEqual(again.next('a'), book.next('a'));
    assert.equal(again.fingerprint, book.fingerprint);
  });

  it('a task that is gone ends the book', () => {
    const book = new TaskPushBook('a2a-s-1');
    book.observed({ kind: 'unchanged' }, at);
    assert.equal(book.ended, false);
    book.observed({ kind: 'gone' }, at);
    assert.equal(book.ended, true);
  });
});

describe('push configs from callers', () => {
  const config = (over: Partial<TaskPushNotificationConfig>): TaskPushNotificationConfig => ({
    tenant: '',
    id: '',
    taskId: 'a2a-s-1',
    url: 'https://hooks.example.com/a',
    token: '',
    authentication: undefined,
    ...over,
  });
  const sealer = new EncryptionCodec(new Map([['k1', randomBytes(32)]]), 'k1');
  // Names resolve where the test says, never through the system's resolver.
  const NAMES: Record<string, string[]> = {
    'hooks.example.com': ['93.184.215.14'],
    'inside.example.com': ['10.1.2.3'],
    'loop.example.com': ['127.0.0.1'],
    'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
  };
  const configs = (push: Record<string, unknown> = {}, withSealer = true) =>
    new CallerWebhooks({
      service: 's',
      runner: 'delegationWorkflow',
      baton: undefined as never,
      push: ServePushSchema.parse(push),
      ...(withSealer ? { sealer } : {}),
      lookup: fakeLookup((host) => NAMES[host]),
    });

  it('seals the token and the credentials; the id is the caller’s, or derived from the URL', async () => {
    const kept = await configs().targetOf(config({ token: 'tok-123', authentication: { scheme: 'Bearer', credentials: 'secret-456' } }));
    assert.match(kept.id, /^push-[0-9a-f]{16}$/);
    assert.equal((await configs().targetOf(config({}))).id, kept.id, 'the same URL, the same id');
    assert.equal(kept.authentication?.scheme, 'Bearer');
    const text = JSON.stringify(kept);
    assert.ok(!text.includes('tok-123') && !text.includes('secret-456'), text);
    const opened = sealer.open(kept.token?.keyId ?? '', Buffer.from(kept.token?.sealed ?? '', 'base64')).toString('utf8');
    assert.equal(opened, 'tok-123');
    assert.equal((await configs().targetOf(config({ id: 'mine' }))).id, 'mine');
  });

  it('refuses secrets it cannot seal, and URLs it may not post to, however the host is spelled', async () => {
    await assert.rejects(configs({}, false).targetOf(config({ token: 'tok' })), PushNotificationNotSupportedError);
    assert.equal((await configs({}, false).targetOf(config({}))).token, undefined, 'no secrets, no keys needed');
    const refused = (url: string, push: Record<string, unknown> = {}) =>
      assert.rejects(configs(push).targetOf(config({ url })), RequestMalformedError, url);
    for (const url of [
      'http://hooks.example.com/a',
      'https://127.0.0.1/a',
      'https://localhost:8443/a',
      'https://localhost.:8443/a',
      'https://LOCALHOST./a',
      'https://api.localhost./a',
      'https://10.0.0.5/a',
      'https://[::1]/a',
      'https://[::127.0.0.1]/a',
      'https://[::ffff:7f00:1]/a',
      'https://[64:ff9b::a00:5]/a',
      'https://[2002:7f00:1::]/a',
      'https://2130706433/a',
      'https://0x7f.1/a',
      'https://inside.example.com/a',
      'https://loop.example.com./a',
      'https://mixed.example.com/a',
      'https://nowhere.example.com/a',
      'https://user:pw@hooks.example.com/a',
      'relative/path',
    ])
      await refused(url);
    await refused('https://169.254.169.254/latest', { allowPrivateNetwork: true });
    await refused('https://[64:ff9b::a9fe:a9fe]/latest', { allowPrivateNetwork: true });
    await assert.doesNotReject(configs({ allowHttp: true, allowPrivateNetwork: true }).targetOf(config({ url: 'http://127.0.0.1:9/a' })));
    await assert.doesNotReject(configs({ allowPrivateNetwork: true }).targetOf(config({ url: 'https://loop.example.com/a' })));
    await assert.rejects(
      configs().targetOf(config({ authentication: { scheme: 'Bearer token', credentials: 'x' } })),
      RequestMalformedError,
    );
    await assert.rejects(configs().targetOf(config({ id: 'no spaces here' })), RequestMalformedError);
  });
});
