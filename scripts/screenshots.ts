/**
 * `npm run screenshots`: the web app's pages as users see them, written to docs/screenshots/. A
 * private stack (Temporal, a worker, the demo agents), a few delegations waiting for people, the trip
 * graph, and headless Chromium.
 */
import { join } from 'node:path';
import pino from 'pino';
import { BatonClient } from '../src/client/baton-client';
import { GraphClient } from '../src/client/graph-client';
import { parseConfig } from '../src/config/load';
import { portalGate } from '../src/demo/auth-gate';
import { TRIP_TO_HELSINKI } from '../src/demo/graph-specs';
import { supplierQa } from '../src/demo/supplier-qa';
import { arcticTours, harborHotel, imageStudio, skywayAir } from '../src/demo/trip-agents';
import { startUi } from '../src/http/start-ui';
import { projectRoot } from '../src/runtime/project-root';
import { startStack } from '../src/runtime/stack';
import { launchBrowser } from '../test/helpers/browser';

async function main(): Promise<void> {
  const logger = pino({ level: 'warn' });
  const config = parseConfig({
    caller: { tenant: 'acme', user: 'ops-1' },
    policies: { 'second-look': { base: 'completed-with-artifact', review: true } },
  });
  const stack = await startStack({
    config,
    logger,
    server: { own: true, uiPort: false },
    agents: [supplierQa(), portalGate(), skywayAir(), harborHotel(), arcticTours(), imageStudio()],
  });
  const ui = await startUi(stack.config, stack.server.address, logger, { port: 0 });
  const browser = await launchBrowser();
  try {
    const { Connection } = await import('@temporalio/client');
    const connection = await Connection.connect({ address: stack.server.address });
    const opts = { namespace: config.temporal.namespace, taskQueue: config.temporal.taskQueue, caller: config.caller };
    const baton = new BatonClient(connection, opts);
    const graphs = new GraphClient(connection, opts);
    const ids = [
      await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] }),
      await baton.start({ agent: 'portal-gate', parts: [{ text: 'Stock for BOLT-M8?' }] }),
      await baton.start({
        agent: 'supplier-qa',
        parts: [{ text: 'Verify inspection-93 against order A1043, product SN-5120' }],
        policy: 'second-look',
      }),
    ];
    for (const id of ids) await baton.until(id, (r) => r.pending !== null, 100);
    const answered = await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-94 against order A1044' }] });
    const asked = await baton.until(answered, (r) => r.pending !== null, 100);
    await baton.answer(answered, asked.pending?.requestId ?? '', [{ text: 'SN-6001' }]);
    await baton.result(answered);
    const trip = await graphs.start(TRIP_TO_HELSINKI);
    await graphs.result(trip);

    const page = await browser.newPage({ viewport: { width: 1200, height: 820 } });
    const out = (name: string) => join(projectRoot(), 'docs', 'screenshots', name);
    await page.goto(ui.signInUrl ?? ui.url);
    // The link names whose token it holds and signs in on a click.
    if (ui.signInUrl) await page.locator('[data-action="sign-in"]').click();
    await page.locator('[data-request]').nth(2).waitFor();
    await page.screenshot({ path: out('inbox.png'), fullPage: true });
    await page.goto(`${ui.url}/#/d/${encodeURIComponent(answered)}`);
    await page.locator('[data-field="outcome"]').waitFor();
    await page.screenshot({ path: out('delegation.png'), fullPage: true });
    await page.goto(`${ui.url}/#/g/${encodeURIComponent(trip)}`);
    await page.locator('[data-field="graph-outcome"]').waitFor();
    await page.screenshot({ path: out('graph.png'), fullPage: true });
    process.stderr.write('wrote docs/screenshots/inbox.png, delegation.png and graph.png\n');
    await connection.close();
  } finally {
    await browser.close();
    await ui.close();
    await stack.stop();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`screenshots failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
