/**
 * Starting the dev server when a port it needs is taken: once on fresh ports, then a clear failure.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { freePort } from '../../src/runtime/free-port';
import { startTemporal, TemporalUnavailableError } from '../../src/runtime/temporal-server';

describe('starting a dev server whose port is taken', () => {
  let taken: Server;
  let takenPort: number;
  before(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    takenPort = (taken.address() as { port: number }).port;
  });
  after(() => taken.close());

  it('starts it once more on freshly chosen ports', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const picks = [takenPort];
    const server = await startTemporal({ own: true, uiPort: false, logger, pickPort: async () => picks.shift() ?? (await freePort()) });
    try {
      assert.notEqual(server.address, `127.0.0.1:${takenPort}`);
      const retried = lines.find((l) => l.msg === 'the Temporal dev server exited before it was ready; starting it once more');
      assert.ok(retried, JSON.stringify(lines));
      assert.match(
        String(retried.reason),
        new RegExp(`exited with code 1 before it was ready \\(it said: .*${takenPort}.*address already in use\\)`),
      );
    } finally {
      await server.stop();
    }
  });

  it('fails with one line when the port was chosen by the caller', async () => {
    await assert.rejects(
      startTemporal({ own: true, uiPort: false, port: takenPort }),
      (err: unknown) =>
        err instanceof TemporalUnavailableError &&
        !err.message.includes('\n') &&
        new RegExp(
          `^no Temporal server can be had: the dev server exited with code 1 before it was ready \\(it said: .*${takenPort}.*\\), twice; run \`npm run setup\``,
        ).test(err.message),
    );
  });
});
