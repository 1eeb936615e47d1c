#!/usr/bin/env node
/**
 * The `baton` command. A worker without a heap cap runs again with one (heap-cap.ts) before anything
 * else is loaded; every other command runs here.
 */
import { decideHeap, followHeapParent, relaunchWithHeapCap } from './heap-cap';

const decision = decideHeap(process.argv.slice(2), process.execArgv, process.env);
if (decision.kind === 'relaunch') {
  void relaunchWithHeapCap(decision.maxHeapMiB).then((code) => process.exit(code));
} else {
  followHeapParent();
  void import('./program.js').then(({ runProgram }) => runProgram(process.argv));
}
