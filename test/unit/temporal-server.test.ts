import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { HISTORY_QUEUE_READ_KEYS, HISTORY_QUEUE_READS_PER_SECOND, historyQueueReadArgs } from '../../src/runtime/history-queue-reads';
import { findTemporal, projectCliPaths, TemporalUnavailableError } from '../../src/runtime/temporal-server';

const KEYS = ['TEMPORAL_ADDRESS', 'TEMPORAL_CLI_PATH', 'PATH'] as const;

describe('finding a Temporal server', () => {
  let saved: Record<string, string | undefined>;
  beforeEach(() => {
    saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
  });
  afterEach(() => {
    for (const k of KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it('prefers TEMPORAL_ADDRESS over everything', () => {
    process.env.TEMPORAL_ADDRESS = '10.0.0.1:7233';
    process.env.TEMPORAL_CLI_PATH = '/nope';
    assert.deepEqual(findTemporal({ configAddress: 'other:7233' }), {
      kind: 'address',
      address: '10.0.0.1:7233',
      from: 'TEMPORAL_ADDRESS',
    });
  });

  it('then the config address, then TEMPORAL_CLI_PATH', () => {
    delete process.env.TEMPORAL_ADDRESS;
    assert.equal(findTemporal({ configAddress: 'other:7233' }).kind, 'address');
    const dir = mkdtempSync(join(tmpdir(), 'baton-cli-'));
    const cli = join(dir, 'temporal');
    writeFileSync(cli, '#!/bin/sh\n');
    chmodSync(cli, 0o755);
    process.env.TEMPORAL_CLI_PATH = cli;
    assert.deepEqual(findTemporal(), { kind: 'cli', path: cli, from: 'TEMPORAL_CLI_PATH' });
  });

  it('refuses a TEMPORAL_CLI_PATH that is not executable, saying how to fix it', () => {
    delete process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_CLI_PATH = '/definitely/not/here';
    assert.throws(
      () => findTemporal(),
      (err: unknown) => err instanceof TemporalUnavailableError && /npm run setup/.test(err.message),
    );
  });

  it('finds temporal on PATH before the project install', () => {
    delete process.env.TEMPORAL_ADDRESS;
    delete process.env.TEMPORAL_CLI_PATH;
    const dir = mkdtempSync(join(tmpdir(), 'baton-path-'));
    const cli = join(dir, 'temporal');
    writeFileSync(cli, '#!/bin/sh\n');
    chmodSync(cli, 0o755);
    process.env.PATH = dir;
    assert.deepEqual(findTemporal(), { kind: 'cli', path: cli, from: 'PATH' });
  });

  it('falls back to the project install, and then (only when allowed) the SDK download', () => {
    delete process.env.TEMPORAL_ADDRESS;
    delete process.env.TEMPORAL_CLI_PATH;
    process.env.PATH = mkdtempSync(join(tmpdir(), 'baton-empty-'));
    const root = mkdtempSync(join(tmpdir(), 'baton-root-'));
    assert.deepEqual(findTemporal({ root }), { kind: 'sdk-download' }, 'nothing installed under this root');
    assert.throws(
      () => findTemporal({ root, allowDownload: false }),
      (err: unknown) => err instanceof TemporalUnavailableError && /project install is missing; run `npm run setup`/.test(err.message),
    );
    const installed = projectCliPaths(root)[0] as string;
    mkdirSync(dirname(installed), { recursive: true });
    writeFileSync(installed, '#!/bin/sh\n');
    chmodSync(installed, 0o755);
    assert.deepEqual(findTemporal({ root }), { kind: 'cli', path: installed, from: 'project install' });
  });
});

describe('how often the dev server Baton starts reads its history queues (decision 0046)', () => {
  it('gives the dev server its four queue limits as dynamic config flags', () => {
    const args = historyQueueReadArgs();
    const flags = args.filter((_, i) => i % 2 === 1);
    assert.deepEqual(
      args.filter((_, i) => i % 2 === 0),
      HISTORY_QUEUE_READ_KEYS.map(() => '--dynamic-config-value'),
    );
    assert.deepEqual(
      flags,
      HISTORY_QUEUE_READ_KEYS.map((k) => `${k}=${HISTORY_QUEUE_READS_PER_SECOND}`),
    );
    assert.ok(HISTORY_QUEUE_READS_PER_SECOND > 20, "above Temporal's default of 20");
  });
});
