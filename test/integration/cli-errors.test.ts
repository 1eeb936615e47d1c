/**
 * Every expected failure, as a user meets it: the real `baton` process prints one line on stderr that
 * says what happened and what to do, exits with the documented code, and prints no stack trace.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { refusingVendor } from '../../src/demo/simple-agents';
import { ALL_SEARCH_ATTRIBUTES } from '../../src/shared/search-attributes';
import { runCli, saysOneLine, userEnv } from '../../infra/cli-process';
import { loopbackAgent, testServer, withWorker } from '../helpers/temporal';

/** Asserts one line on stderr matching `line`, the exit code, and no stack trace. */
function configFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'baton-errors-')), 'baton.config.yaml');
  writeFileSync(file, text);
  return file;
}

describe('expected failures, as processes', () => {
  it('Temporal unreachable: names the address, where it came from, and how to start or point at a server', async () => {
    const env = userEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    const hint =
      /^baton: cannot reach Temporal at 127\.0\.0\.1:1 \(TEMPORAL_ADDRESS\): .+; start one with `npx baton dev`, or point TEMPORAL_ADDRESS/;
    saysOneLine(await runCli(['ls'], env), 1, hint);
    saysOneLine(await runCli(['worker'], env), 1, hint);
    saysOneLine(
      await runCli(['show', 'dlg-x'], userEnv({ BATON_CONFIG: configFile('temporal: { address: "127.0.0.1:1" }\n') })),
      1,
      /\(temporal\.address in the config\)/,
    );
  });

  it('no Temporal to start: says the three ways to get one', async () => {
    const run = await runCli(['demo'], userEnv({ TEMPORAL_CLI_PATH: '/definitely/not/temporal' }));
    saysOneLine(
      run,
      1,
      /^baton: no Temporal server can be had: TEMPORAL_CLI_PATH=\/definitely\/not\/temporal is not an executable file; run `npm run setup`.*TEMPORAL_ADDRESS/,
    );
  });

  it('config invalid: names the file, each field and the fix', async () => {
    const file = configFile('agents:\n  qa: { card: "not a url", alowHttp: true }\n');
    const run = await runCli(['ls'], userEnv({ BATON_CONFIG: file }));
    saysOneLine(
      run,
      1,
      /^baton: \S+baton\.config\.yaml is not valid: agents\.qa\.card: must be an absolute http\(s\) URL.*; agents\.qa: unknown field "alowHttp": remove it or fix its spelling/,
    );
  });

  it('usage: a bad flag value lists the values the type allows', async () => {
    const run = await runCli(['ls', '--status', 'bogus'], userEnv());
    saysOneLine(
      run,
      2,
      /^baton: .*'bogus' is invalid\. use one of STARTING, REMOTE_ACTIVE, WAITING_INPUT, WAITING_AUTH, WAITING_REVIEW, CANCELLING, SETTLED \(see --help\)$/,
    );
    saysOneLine(await runCli(['frobnicate'], userEnv()), 2, /^baton: unknown command 'frobnicate' \(see --help\)$/);
  });

  it('a port in use: names it and the flag that changes it', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const run = await runCli(['serve-agents', '--port', String(port)], userEnv());
      saysOneLine(run, 1, new RegExp(`^baton: 127\\.0\\.0\\.1:${port} is in use: choose another port \\(--port`));
    } finally {
      taken.close();
    }
  });

  describe('on a namespace that is not set up for Baton', () => {
    const namespace = `bare-${randomUUID().slice(0, 8)}`;
    let env: NodeJS.ProcessEnv;
    before(async () => {
      const { address } = await testServer();
      const connection = await Connection.connect({ address });
      try {
        await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
      } finally {
        await connection.close();
      }
      env = userEnv({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace });
    });

    it('names the missing search attributes and `baton setup`, until setup registers them once', async () => {
      const missing = new RegExp(
        `^baton: namespace ${namespace} lacks Baton's search attributes \\(BatonStatus, .*\\): register them with \`npx baton setup\`$`,
      );
      saysOneLine(await runCli(['delegate', '--agent', 'supplier-qa', '--text', 'hello'], env), 1, missing);
      saysOneLine(await runCli(['ls'], env), 1, missing);
      saysOneLine(await runCli(['worker'], env), 1, missing);

      const setup = await runCli(['setup', '--json'], env);
      assert.equal(setup.code, 0, setup.stderr);
      const did = JSON.parse(setup.stdout) as { namespace: string; created: boolean; registered: string[] };
      assert.equal(did.created, false, 'the namespace was there');
      assert.deepEqual(
        { namespace: did.namespace, registered: [...did.registered].sort() },
        { namespace, registered: ALL_SEARCH_ATTRIBUTES.map((k) => k.name).sort() },
      );
      const again = await runCli(['setup'], env);
      assert.equal(again.code, 0, again.stderr);
      assert.match(
        again.stdout,
        new RegExp(
          `namespace ${namespace}: Baton's ${ALL_SEARCH_ATTRIBUTES.length} search attributes were already registered; nothing to do`,
        ),
      );

      const listed = await runCli(['ls'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.stdout, 'no delegations match\n');
    });

    it('a namespace that does not exist is named, with the command that creates it; setup creates it', async () => {
      const run = await runCli(['ls'], { ...env, TEMPORAL_NAMESPACE: 'no-such-namespace' });
      saysOneLine(run, 1, /^baton: Temporal has no namespace no-such-namespace .*create it with `npx baton setup`/);

      const fresh = `fresh-${randomUUID().slice(0, 8)}`;
      const created = await runCli(['setup', '--retention-days', '2'], { ...env, TEMPORAL_NAMESPACE: fresh });
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, new RegExp(`^namespace ${fresh}: created it \\(retention 2 days\\); registered BatonStatus, `));
      const again = await runCli(['setup', '--json'], { ...env, TEMPORAL_NAMESPACE: fresh });
      assert.deepEqual(JSON.parse(again.stdout), {
        namespace: fresh,
        created: false,
        registered: [],
        searchAttributes: ALL_SEARCH_ATTRIBUTES.map((k) => k.name),
      });
      const listed = await runCli(['ls'], { ...env, TEMPORAL_NAMESPACE: fresh });
      assert.equal(listed.stdout, 'no delegations match\n', listed.stderr);
    });
  });

  describe('with a worker', () => {
    let vendor: RunningAgent;
    before(async () => {
      vendor = await startAgentServer(refusingVendor());
    });
    after(async () => {
      await vendor.close();
    });

    it('not found, refused, an agent that refuses the work and one the trust policy refuses', async () => {
      // The card's interfaces point at the agent; an entry that allows no http refuses the card's origin.
      const agents = { 'refusing-vendor': loopbackAgent(vendor.url), untrusted: loopbackAgent(vendor.url, { allowHttp: false }) };
      await withWorker(agents, async (ctx) => {
        const { address } = await testServer();
        const config = configFile(
          `temporal: { address: "${address}", taskQueue: "${ctx.taskQueue}" }\ncaller: { tenant: acme, user: ops-1 }\n`,
        );
        const env = userEnv({ BATON_CONFIG: config });

        saysOneLine(await runCli(['show', 'dlg-no-such-thing'], env), 1, /^baton: no delegation with id dlg-no-such-thing$/);

        const refused = await runCli(
          ['delegate', '--agent', 'refusing-vendor', '--text', 'Ship 10,000 units by Friday', '--wait', '--json'],
          env,
        );
        assert.equal(refused.code, 3, refused.stderr);
        const id = (JSON.parse(refused.stdout) as { id: string }).id;
        assert.match(
          refused.stderr.trim().split('\n').at(-1) ?? '',
          new RegExp(`^baton: delegation ${id} ended REMOTE_REJECTED: agent refused the work \\(REJECTED\\)$`),
        );

        saysOneLine(await runCli(['cancel', id], env), 1, new RegExp(`^baton: delegation ${id} refused: it has already settled$`));
        // The three principals, and the audit trail from the history (docs/data-use.md).
        const shown = await runCli(['show', id], env);
        assert.match(
          shown.stdout,
          /^principals {2}user acme\/ops-1 → Baton for tenant acme → agent refusing-vendor \(card sha256 [0-9a-f]{16}…\)$/m,
        );
        assert.match(shown.stdout, /^turn 1 {6}\S+ by acme\/ops-1$/m);
        const audited = await runCli(['audit', id, '--json'], env);
        assert.equal(audited.code, 0, audited.stderr);
        const trail = JSON.parse(audited.stdout) as { entries: { kind: string; from: string }[] };
        assert.deepEqual(
          trail.entries.map((e) => [e.kind, e.from]),
          [
            ['request', 'user acme/ops-1'],
            ['outcome', 'Baton for tenant acme'],
          ],
        );
        assert.match(
          (await runCli(['audit', id], env)).stdout,
          /request {3}user acme\/ops-1 → agent refusing-vendor .*: turn 1: the request, 1 part sha256:[0-9a-f]{16}…/,
        );
        saysOneLine(await runCli(['audit', 'dlg-no-such-thing'], env), 1, /^baton: no delegation with id dlg-no-such-thing$/);
        // An id Baton made is not one a caller may choose (ids a caller chooses are kept within its tenant).
        saysOneLine(
          await runCli(['delegate', '--agent', 'refusing-vendor', '--text', 'again', '--id', id], env),
          2,
          /^baton: ids starting with dlg- are Baton's own: choose another id for a delegation$/,
        );

        const untrusted = await runCli(['delegate', '--agent', 'untrusted', '--text', 'hello', '--wait'], env);
        assert.equal(untrusted.code, 3, untrusted.stderr);
        assert.match(
          untrusted.stderr.trim().split('\n').at(-1) ?? '',
          /^baton: delegation \S+ ended ERROR: TrustRefused: agent untrusted: .*http/,
        );
        assert.doesNotMatch(untrusted.stderr, /^\s+at /m);

        // Data labels (docs/data-use.md): a label the worker does not know is refused there, nothing sent.
        const secret = await runCli(['delegate', '--agent', 'refusing-vendor', '--text', 'hello', '--label', 'secret', '--wait'], env);
        assert.equal(secret.code, 3, secret.stderr);
        assert.match(
          secret.stderr.trim().split('\n').at(-1) ?? '',
          /^baton: delegation \S+ ended ERROR: DataRefused: part 1 is labelled secret, which is not one of dataUse\.labels \(public, internal, confidential, personal\); nothing was sent$/,
        );
        saysOneLine(
          await runCli(['delegate', '--agent', 'refusing-vendor', '--text', 'hello', '--terms', '{nope'], env),
          2,
          /^baton: --terms is not JSON: /,
        );
        saysOneLine(
          await runCli(['delegate', '--agent', 'refusing-vendor', '--text', 'hello', '--terms', '{"forwarding":"listed-agents"}'], env),
          2,
          /^baton: --label\/--terms: terms\.agents: forwarding: listed-agents needs the agents it lists/,
        );
        // With the agent in this machine's config, the CLI says at once what the worker would refuse.
        const withAgent = configFile(
          `temporal: { address: "${address}", taskQueue: "${ctx.taskQueue}" }\ncaller: { tenant: acme, user: ops-1 }\n` +
            `agents:\n  refusing-vendor: { card: "${vendor.url}", allowHttp: true, allowPrivateNetwork: true }\n`,
        );
        saysOneLine(
          await runCli(
            ['delegate', '--agent', 'refusing-vendor', '--text', 'hello', '--label', 'confidential'],
            userEnv({ BATON_CONFIG: withAgent }),
          ),
          2,
          /^baton: part 1 is labelled confidential, and agent refusing-vendor is cleared only for public \(agents\.refusing-vendor\.clearance\); nothing was sent$/,
        );
      });
    });
  });
});
