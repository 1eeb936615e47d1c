/** Resolves at the first Ctrl-C or SIGTERM: a server command then closes what it started. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolveStop) => {
    process.once('SIGINT', () => resolveStop());
    process.once('SIGTERM', () => resolveStop());
  });
}
