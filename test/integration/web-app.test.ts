/**
 * The web app in headless Chromium against a real worker, agents and API server: a pending input is
 * answered from the inbox and the delegation is seen to complete; a graph page draws its nodes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { Browser, Page } from 'playwright-core';
import { BatonClient } from '../../src/client/baton-client';
import { GraphClient } from '../../src/client/graph-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { harborHotel, skywayAir } from '../../src/demo/trip-agents';
import { startApiServer, type RunningApi } from '../../src/http/api-server';
import { CallerTokens } from '../../src/auth/caller-tokens';
import { projectRoot } from '../../src/runtime/project-root';
import { BATON_VERSION } from '../../src/shared/baton-version';
import { launchBrowser } from '../helpers/browser';
import { loopbackAgent, withWorker, type TestWorkerContext } from '../helpers/temporal';

const TOKEN = 'web-app-test-token-0123456789';
/** Another caller's token: what a sign-in link from someone else would carry. */
const OTHER = 'web-app-test-other-0123456789';
// What a hostile agent might ask: markup that would run script if it were ever put into the page.
const HOSTILE = 'What is the serial number? <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

describe('web app in Chromium', () => {
  const agents: RunningAgent[] = [];
  let browser: Browser;
  before(async () => {
    agents.push(
      await startAgentServer(supplierQa({ workMs: 30, question: HOSTILE })),
      await startAgentServer(skywayAir({ workMs: 30 })),
      await startAgentServer(harborHotel({ workMs: 30 })),
    );
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    for (const a of agents) await a.close();
  });

  const registry = () => Object.fromEntries(agents.map((a) => [a.name, loopbackAgent(a.url)]));
  const withApp = async (ctx: TestWorkerContext, fn: (api: RunningApi, page: Page, problems: string[]) => Promise<void>) => {
    const opts = { namespace: ctx.client.options.namespace, taskQueue: ctx.taskQueue, caller: { tenant: 'acme', user: 'ops-1' } };
    const api = await startApiServer({
      baton: new BatonClient(ctx.client.connection, opts),
      graphs: new GraphClient(ctx.client.connection, opts),
      tokens: new CallerTokens([
        { token: TOKEN, caller: opts.caller },
        { token: OTHER, caller: { tenant: 'globex', user: 'mallory' } },
      ]),
      logger: pino({ level: 'warn' }),
      host: '127.0.0.1',
      port: 0,
      pollMs: 100,
      uiDir: join(projectRoot(), 'ui'),
    });
    const page = await browser.newPage();
    // Any script error or refused resource (a CSP violation included) fails the test.
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => void (msg.type() === 'error' && problems.push(`console: ${msg.text()}`)));
    try {
      await fn(api, page, problems);
    } finally {
      await page.close();
      await api.close();
    }
  };

  it('answers a pending input from the inbox, shows the agent’s words as text, and sees the delegation complete', async () => {
    await withWorker(registry(), async (ctx) =>
      withApp(ctx, async (api, page, problems) => {
        const baton = new BatonClient(ctx.client.connection, {
          namespace: ctx.client.options.namespace,
          taskQueue: ctx.taskQueue,
          caller: { tenant: 'acme', user: 'ops-1' },
        });
        const id = await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
        const waiting = await baton.until(id, (r) => r.pending !== null, 50);
        const requestId = waiting.pending?.requestId ?? '';

        // A sign-in link says whose it is, and signs in only once the person says yes.
        await page.goto(`${api.url}/#token=${TOKEN}`);
        await page.getByRole('heading', { name: 'Sign in from a link' }).waitFor();
        assert.equal(new URL(page.url()).hash, '#/inbox', 'the token leaves the address bar at once');
        assert.equal(await page.evaluate('sessionStorage.length'), 0, 'not signed in before the person says yes');
        await page.locator('[data-action="sign-in"]', { hasText: 'Sign in as acme/ops-1' }).click();
        const card = page.locator(`[data-request="${requestId}"]`);
        await card.waitFor();
        assert.equal(await card.locator('[data-untrusted]').textContent(), `${HOSTILE}\n`, 'the prompt is shown verbatim, as text');
        assert.equal(await page.locator('main img, main script').count(), 0, 'no element came from the prompt');
        assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);

        await card.locator('textarea').fill('SN-4471');
        await card.getByRole('button', { name: 'Send answer' }).click();
        await card.getByText('sent to the agent').waitFor();

        await page.goto(`${api.url}/#/d/${encodeURIComponent(id)}`);
        await page.locator('[data-field="outcome"]', { hasText: 'ACCEPTED' }).waitFor();
        await page.getByText('COMPLETED').first().waitFor();
        const record = await baton.show(id);
        assert.equal(record.outcome?.kind, 'ACCEPTED');
        assert.equal(record.turns.length, 2, 'the answer went out as the second turn');
        assert.match(
          (await page.locator('main table').last().textContent()) ?? '',
          new RegExp(record.artifacts[0]?.sha256.slice(0, 16) ?? 'none'),
          'the artifact digest is shown',
        );
        assert.doesNotMatch(await page.locator('main').innerText(), /\bnull\b|\bundefined\b/, 'absent parts are not printed');
        // The three principals (docs/data-use.md), and who sent each turn.
        assert.match(
          (await page.locator('[data-field="principals"]').innerText()).replace(/\s+/g, ' '),
          new RegExp(
            `User acme/ops-1 .*Service Baton for tenant acme .*Agent service ${record.agent.name} card ${record.agent.cardSha256?.slice(0, 16)}`,
          ),
        );
        assert.match(await page.locator('[data-field="turns"]').innerText(), /by acme\/ops-1[\s\S]*by acme\/ops-1/);

        // Download saves the artifact's bytes as a file: the ones its digest describes.
        const artifact = record.artifacts[0];
        assert.ok(artifact);
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.locator(`[data-download="${artifact.artifactId}"]`).click(),
        ]);
        const saved = readFileSync((await download.path()) as string);
        assert.equal(createHash('sha256').update(saved).digest('hex'), artifact.sha256);
        assert.match(download.suggestedFilename(), /^[A-Za-z0-9._-]+$/);

        // The version that started it, linked to the list of what that version started.
        await page
          .locator('[data-field="baton-version"]')
          .getByRole('link', { name: `v${BATON_VERSION}` })
          .click();
        await page.getByRole('heading', { name: `Delegations started by Baton v${BATON_VERSION}` }).waitFor();
        assert.match((await page.locator('main table').textContent()) ?? '', new RegExp(id));
        await page.goto(`${api.url}/#/delegations/version=0.0.0-none`);
        await page.getByText('No delegations started by v0.0.0-none.').waitFor();
        assert.deepEqual(problems, []);
      }),
    );
  });

  it('draws a graph with its nodes’ states and links each node to its delegation', async () => {
    await withWorker(registry(), async (ctx) =>
      withApp(ctx, async (api, page, problems) => {
        const graphs = new GraphClient(ctx.client.connection, {
          namespace: ctx.client.options.namespace,
          taskQueue: ctx.taskQueue,
          caller: { tenant: 'acme', user: 'ops-1' },
        });
        const id = await graphs.start({
          nodes: [
            { id: 'flight', agent: 'skyway-air', text: 'Book HEL-RVN on 2027-02-03' },
            { id: 'hotel', agent: 'harbor-hotel', text: 'Book 3 nights in Rovaniemi', dependsOn: ['flight'] },
          ],
        });
        await page.goto(`${api.url}/#token=${TOKEN}`);
        await page.locator('[data-action="sign-in"]').click();
        await page.locator('#inbox').waitFor();
        // Someone else's link does not switch who this tab acts as: it asks, naming both, and "stay" keeps it.
        await page.goto(`${api.url}/#token=${OTHER}`);
        await page.getByText('This link signs this tab in as globex/mallory.').waitFor();
        await page.getByText('The tab is signed in as acme/ops-1 now; that would end.').waitFor();
        await page.locator('[data-action="keep"]', { hasText: 'Stay acme/ops-1' }).click();
        await page.locator('#inbox').waitFor();
        assert.equal(await page.locator('#whoami').textContent(), 'acme/ops-1');
        await page.goto(`${api.url}/#/g/${encodeURIComponent(id)}`);
        await page.locator('svg.dag a.n-ACCEPTED[data-node="hotel"]').waitFor();
        assert.equal(await page.locator('svg.dag a.n-ACCEPTED').count(), 2);
        assert.equal(await page.locator('svg.dag path[marker-end]').count(), 1, 'one edge: flight → hotel');
        assert.equal(await page.locator('svg.dag a[data-node="hotel"]').getAttribute('href'), `#/d/${encodeURIComponent(`${id}/hotel`)}`);
        await page.locator('[data-field="graph-outcome"]', { hasText: 'ACCEPTED' }).waitFor();
        assert.equal(await page.locator('[data-field="graph-progress"]').innerText(), '2/2 done');
        assert.equal(await page.locator('[data-action="cancel-graph"]').count(), 0, 'a settled graph has no cancel button');
        assert.doesNotMatch(await page.locator('main').innerText(), /\bnull\b|\bundefined\b/);
        // The graph list links to it once visibility has it (eventually consistent: the page is read again).
        const link = page.locator(`main a[href="#/g/${encodeURIComponent(id)}"]`);
        await page.goto(`${api.url}/#/graphs/settled`);
        await page.locator('[data-field="graph-filters"]').waitFor();
        for (let i = 0; i < 50 && !(await link.count()); i++) {
          await page.reload();
          await page.locator('[data-field="graph-filters"]').waitFor();
        }
        assert.equal(await link.count(), 1, 'the settled graphs list it');
        assert.match(await page.locator('main table').innerText(), /SETTLED/);
        assert.deepEqual(problems, []);
      }),
    );
  });
});
