/**
 * `baton worker` caps each V8 heap of its process: the main thread's (activities) and the workflow
 * thread's. Left alone, V8 grows a heap lazily up to a quarter of the host's memory, so a busy worker's
 * memory says more about the host than about its work (decision 0023). Node takes
 * `--max-old-space-size` only when it starts: a worker started without it runs again as a child with
 * it, and this process passes signals on and exits as the child does. Only Node's own modules are
 * loaded before that decision, which keeps the parent at about 40 MiB.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/** The cap, per V8 heap, when neither `--max-heap` nor its variable says otherwise (decision 0023). */
export const DEFAULT_MAX_HEAP_MIB = 256;
/** The variable `--max-heap` defaults to. */
export const MAX_HEAP_ENV = 'BATON_WORKER_MAX_HEAP_MIB';
/** Set in the child's environment to the parent's pid: the child ends itself when the parent is gone. */
export const HEAP_PARENT_ENV = 'BATON_HEAP_PARENT';
/** The smallest cap accepted: below it a worker cannot hold its workflow bundle. */
export const MIN_MAX_HEAP_MIB = 64;

/** What `baton <argv>` should do about the heap: run here, or run again with the flag. */
export type HeapDecision = { kind: 'here' } | { kind: 'relaunch'; maxHeapMiB: number };

/** A `--max-heap` value: a whole number of MiB, at least `MIN_MAX_HEAP_MIB`, or 0 for Node's own default. */
export function parseMaxHeap(value: string): number | undefined {
  if (!/^\d{1,6}$/.test(value)) return undefined;
  const n = Number(value);
  return n === 0 || n >= MIN_MAX_HEAP_MIB ? n : undefined;
}

/**
 * Pure: whether `args` (the command line after `node main.js`) start a worker that should run again
 * with a heap cap. A heap flag already given to Node wins; an invalid `--max-heap` runs here, where the
 * command line's own check reports it.
 */
export function decideHeap(args: readonly string[], execArgv: readonly string[], env: NodeJS.ProcessEnv): HeapDecision {
  const here: HeapDecision = { kind: 'here' };
  if (commandOf(args) !== 'worker') return here;
  if ([...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a.startsWith('--max-old-space-size'))) return here;
  const given = optionValue(args, '--max-heap') ?? env[MAX_HEAP_ENV];
  const maxHeapMiB = given === undefined ? DEFAULT_MAX_HEAP_MIB : parseMaxHeap(given);
  return maxHeapMiB === undefined || maxHeapMiB === 0 ? here : { kind: 'relaunch', maxHeapMiB };
}

/** The first word of the command line that is neither an option nor the config option's value. */
function commandOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '-c' || a === '--config') i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

function optionValue(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === name) return args[i + 1] ?? '';
    if (a.startsWith(`${name}=`)) return a.slice(name.length + 1);
  }
  return undefined;
}

/** Signals passed on to the child: the ones the Temporal Runtime shuts a worker down on, and a hang-up. */
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGQUIT', 'SIGUSR2', 'SIGHUP'];

/**
 * Runs this command again in a child Node with `--max-old-space-size`, and resolves with the exit code
 * to end with. The child has its own process group, so a terminal's Ctrl-C reaches it once (passed on
 * from here): the Runtime treats a second signal as "stop now".
 */
export function relaunchWithHeapCap(maxHeapMiB: number): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, `--max-old-space-size=${maxHeapMiB}`, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: true,
    env: { ...process.env, [HEAP_PARENT_ENV]: String(process.pid) },
  });
  const pass = (signal: NodeJS.Signals): void => void child.kill(signal);
  for (const s of FORWARDED) process.on(s, pass);
  return new Promise((resolve) => {
    child.on('error', (err) => {
      process.stderr.write(`baton: could not start the worker process (${err.message}); run it with --max-heap 0 to skip the heap cap\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      for (const s of FORWARDED) process.off(s, pass);
      // V8 aborts a process whose heap is full after printing its own "heap out of memory" lines.
      if (signal === 'SIGABRT' || code === 134)
        process.stderr.write(`baton: the worker ran out of its ${maxHeapMiB} MiB heap; raise --max-heap (or ${MAX_HEAP_ENV})\n`);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

/**
 * In a child started by `relaunchWithHeapCap`: a parent killed outright (SIGKILL, the OOM killer) could
 * pass nothing on, and the two are one worker to whoever killed it, so the child ends the same way
 * instead of running on unsupervised.
 */
export function followHeapParent(): void {
  if (process.env[HEAP_PARENT_ENV] === undefined || !process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'));
}
