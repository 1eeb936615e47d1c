/**
 * Baton as the receiving agent honours an incoming data-use contract (docs/data-use.md): the official
 * Python client (a2a-sdk) sends labelled messages to Baton-served agents; data whose terms or labels
 * forbid where the service would pass it is refused with a typed A2A error before any work starts, and
 * what is allowed goes on with its terms to an agent that declares the extension.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { ConfigSchema } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { projectRoot } from '../../src/runtime/project-root';
import { DATA_USE_EXTENSION } from '../../src/shared/data-use';
import { recordingDesk, type Received } from '../helpers/recording-desk';
import { serveForTest, SKILLS, TASK_ID_KEY } from '../helpers/served';
import { servedTaskId } from '../../src/served-tasks/task-id';
import { WorkflowNotFoundError } from '@temporalio/client';
import { batonFor, loopbackAgent, withWorker } from '../helpers/temporal';

const execFileAsync = promisify(execFile);
const ACME = 'acme-data-use-token-0123456789abcdef';
const GLOBEX = 'globex-data-use-token-0123456789abcdef';

type Sent = { states?: string[]; taskId?: string; activated?: string[]; error?: string; message?: string };
type Seen = {
  extensions: Record<string, [string, boolean][]>;
  cleared: Sent;
  noForwarding: Sent;
  unlisted: Sent;
  graphClearance: Sent;
  graphPublic: Sent;
  required: Sent;
  requiredAsked: Sent;
};

describe('served agents honour a caller’s data-use terms (official Python client)', () => {
  const received: Received[] = [];
  let declaring: RunningAgent;
  let plain: RunningAgent;
  before(async () => {
    declaring = await startAgentServer(recordingDesk(received, true));
    plain = await startAgentServer(recordingDesk(received));
  });
  after(async () => {
    await declaring.close();
    await plain.close();
  });

  it('refuses before any work starts what the terms or labels forbid; forwards the rest with its terms', { timeout: 180_000 }, async () => {
    const python = join(projectRoot(), '.baton', 'tools', 'a2a-python-1.3.0', 'bin', 'python');
    assert.ok(existsSync(python), `no ${python}: run npm run setup -- --test (it installs a2a-sdk from PyPI)`);
    const agents = {
      'declaring-desk': loopbackAgent(declaring.url, { acceptance: 'accept-any', clearance: ['internal', 'confidential'] }),
      'public-desk': loopbackAgent(plain.url, { acceptance: 'accept-any' }),
    };
    await withWorker(agents, async (ctx) => {
      const gateway = { description: 'A gateway to the declaring desk', skills: SKILLS, delegate: { agent: 'declaring-desk' } };
      const config = ConfigSchema.parse({
        agents,
        serve: {
          pollMs: 50,
          services: {
            gateway,
            'strict-gateway': { ...gateway, dataUse: { required: true } },
            graph: {
              description: 'Both desks',
              skills: SKILLS,
              graph: {
                nodes: [
                  { id: 'a', agent: 'declaring-desk', withRequest: true },
                  { id: 'b', agent: 'public-desk', withRequest: true },
                ],
              },
            },
          },
        },
      });
      const served = await serveForTest(ctx, config, { acme: ACME, globex: GLOBEX });
      try {
        const prefix = `py-${Date.now()}`;
        const run = await execFileAsync(
          python,
          [join(projectRoot(), 'test', 'interop', 'python-data-use-client.py'), `${served.api.url}/a2a`, ACME, prefix],
          { encoding: 'utf8', timeout: 150_000 },
        ).catch((err: { stderr?: string; message: string }) => assert.fail(`the Python client failed: ${err.stderr ?? err.message}`));
        const seen = JSON.parse(run.stdout) as Seen;

        // The served cards declare the extension, required where the service says so.
        assert.deepEqual(seen.extensions, { gateway: [[DATA_USE_EXTENSION, false]], 'strict-gateway': [[DATA_USE_EXTENSION, true]] });

        // Allowed: the terms list the agent the gateway passes it to, which is cleared for the label.
        assert.deepEqual(seen.cleared.states, ['TASK_STATE_COMPLETED'], JSON.stringify(seen.cleared));
        assert.ok(
          seen.cleared.activated?.some((h) => h.includes(DATA_USE_EXTENSION)),
          'the gateway acknowledged the terms',
        );
        const forwarded = received.find((m) => m.parts[0]?.text === 'Q3 margins for the board');
        assert.deepEqual(
          forwarded?.parts[0]?.metadata,
          {
            [DATA_USE_EXTENSION]: {
              label: 'confidential',
              terms: { purpose: 'board pack', forwarding: 'listed-agents', agents: ['declaring-desk'] },
            },
          },
          'the label and terms went on with the data',
        );
        assert.deepEqual(forwarded?.header, [DATA_USE_EXTENSION]);
        const record = await batonFor(ctx).show(seen.cleared.taskId ?? '');
        assert.deepEqual(record.turns[0]?.dataUse, { labels: ['confidential'], conveyed: true, acknowledged: true });
        // The forward on the audit trail: the caller's message, through the served agent, to the agent.
        const trail = await batonFor(ctx).audit(seen.cleared.taskId ?? '');
        assert.equal(trail.principals.service, 'Baton for tenant acme, as served agent gateway');
        assert.deepEqual(
          [trail.entries[0]?.kind, trail.entries[0]?.from, trail.entries[0]?.to],
          ['request', 'user acme/ops-1', trail.principals.agent],
        );
        assert.match(trail.principals.agent, /^agent declaring-desk \(card sha256 [0-9a-f]{16}…\)$/);

        // Refused with a typed A2A error naming the rule, nothing started.
        assert.equal(seen.noForwarding.error, 'UnsupportedOperationError', JSON.stringify(seen.noForwarding));
        assert.match(
          seen.noForwarding.message ?? '',
          /part 1's terms forbid forwarding \(forwarding: none\), and service gateway passes its request to agent declaring-desk; nothing was started/,
        );
        assert.equal(seen.unlisted.error, 'UnsupportedOperationError');
        assert.match(
          seen.unlisted.message ?? '',
          /part 1's terms let it go only to public-desk, and service gateway passes its request to agent declaring-desk/,
        );
        assert.equal(seen.graphClearance.error, 'UnsupportedOperationError');
        assert.match(
          seen.graphClearance.message ?? '',
          /part 1 is labelled confidential, and agent public-desk, to which service graph passes its request, is cleared only for public/,
        );
        // The served graph takes public data: both its agents get it, the terms only where the card declares them.
        assert.deepEqual(seen.graphPublic.states, ['TASK_STATE_COMPLETED'], JSON.stringify(seen.graphPublic));
        const toGraph = received.filter((m) => m.parts.some((p) => p.text === 'the canteen menu for the graph'));
        assert.equal(toGraph.length, 2, 'each node of the served graph got the message');
        assert.deepEqual(
          toGraph.map((m) => m.parts.find((p) => p.text === 'the canteen menu for the graph')?.metadata ?? null).sort(),
          [{ [DATA_USE_EXTENSION]: { label: 'public', terms: { forwarding: 'any' } } }, null].sort(),
          'with terms to the declaring desk, without them to the other',
        );
        assert.equal(seen.required.error, 'ExtensionSupportRequiredError', JSON.stringify(seen.required));
        assert.match(seen.required.message ?? '', /service strict-gateway requires the data-use extension/);
        assert.deepEqual(seen.requiredAsked.states, ['TASK_STATE_COMPLETED'], JSON.stringify(seen.requiredAsked));
        const texts = received.flatMap((m) => m.parts.map((p) => p.text));
        for (const refused of ['salaries', 'roadmap', 'merger memo']) assert.ok(!texts.includes(refused), `${refused} reached no agent`);
        // No task exists under the id each refused message would have started.
        for (const [service, name] of [
          ['gateway', 'none'],
          ['gateway', 'unlisted'],
          ['graph', 'graph'],
          ['strict-gateway', 'required'],
        ] as const) {
          const id = servedTaskId(TASK_ID_KEY, service, { tenant: 'acme', user: 'ops-1' }, `${prefix}-${name}`);
          await assert.rejects(ctx.client.workflow.getHandle(id).describe(), WorkflowNotFoundError, `${service} ${name}: nothing started`);
        }
        const allowed = servedTaskId(TASK_ID_KEY, 'gateway', { tenant: 'acme', user: 'ops-1' }, `${prefix}-cleared`);
        assert.equal(allowed, seen.cleared.taskId, 'the ids are derived as the served agent derives them');
      } finally {
        await served.close();
      }
    });
  });
});
