/**
 * Headless Chromium for the web app's tests: Debian's `chromium` (setup installs it), driven by
 * playwright-core. No browser is downloaded; without one the test fails and says how to get it.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string {
  const given = process.env.BATON_CHROMIUM;
  if (given) {
    if (!existsSync(given)) throw new Error(`BATON_CHROMIUM is ${given}, which does not exist`);
    return given;
  }
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found)
    throw new Error(
      `no Chromium for the browser tests (looked at ${CANDIDATES.join(', ')}): run \`npm run setup\` (it installs Debian's chromium) or set BATON_CHROMIUM`,
    );
  return found;
}

export function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}
