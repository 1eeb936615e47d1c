/**
 * Starts an HTTP app listening, the same way for every server Baton runs (web app and API, webhook,
 * demo agents): a port in use is a config error that names the port and how to choose another.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { ConfigError } from '../config/load';

/** Resolves once `app` listens on `host:port` (0: a free port; `port` tells which). `choose` says where another port is set. */
export function listen(app: Express, host: string, port: number, choose: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const refuse = (err: NodeJS.ErrnoException): void =>
      reject(
        err.code === 'EADDRINUSE' || err.code === 'EACCES'
          ? new ConfigError(`${host}:${port} is ${err.code === 'EACCES' ? 'not allowed' : 'in use'}: choose another port (${choose})`)
          : err,
      );
    // Express 5 hands a listen error to this callback as well as to the 'error' event.
    const server = app.listen(port, host, (err?: Error) =>
      err ? refuse(err) : resolve({ server, port: (server.address() as AddressInfo).port }),
    );
    server.once('error', refuse);
  });
}

/**
 * Stops `server` now: the connections it holds open (keep-alive, streams, long polls) are cut rather
 * than waited for, and it resolves once the server has closed.
 */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
