/**
 * A loopback port held open until its owner is ready to bind it. `baton dev` must know its web app's
 * port before the stack starts (the codec endpoint and the self-served agent name it), while the
 * Temporal dev server it starts picks ports of its own: a port merely picked could be handed to the
 * dev server in that time; a port held listening cannot.
 */
import { createServer } from 'node:net';

export interface PortReservation {
  port: number;
  /** Lets the port go, for its owner to bind at once. */
  release(): Promise<void>;
}

/** Holds a free port on 127.0.0.1 until `release()`; the hold never keeps the process alive. */
export function reservePort(): Promise<PortReservation> {
  return new Promise((resolve, reject) => {
    const holder = createServer().unref();
    holder.once('error', reject);
    holder.listen(0, '127.0.0.1', () => {
      const { port } = holder.address() as { port: number };
      let released: Promise<void> | undefined;
      const release = (): Promise<void> => (released ??= new Promise<void>((done) => holder.close(() => done())));
      resolve({ port, release });
    });
  });
}
