/** Remote requests per delegation, by observation mode (stream, poll, push), to an agent that works 3 s. */
import { say, type BenchRun, type Report } from './runner';

export async function measureRemoteCalls(run: BenchRun): Promise<Record<string, number>> {
  say('remote requests per mode…');
  const perMode: Record<string, number> = {};
  for (const [mode, agent] of Object.entries(run.agents.working)) {
    const before = agent.calls();
    for (let i = 0; i < run.size.modeRuns; i++)
      await run.baton.result(await run.baton.start({ agent: `works-${mode}`, parts: [{ text: 'book it' }] }));
    perMode[mode] = (agent.calls() - before) / run.size.modeRuns;
  }
  return perMode;
}

export function reportRemoteCalls(report: Report, perMode: Record<string, number>, runs: number): void {
  report.push(
    '',
    `## Remote requests per delegation (agent works 3 s; average of ${runs})`,
    '',
    '| Observation | JSON-RPC calls to the agent |',
    '|---|---|',
  );
  for (const [mode, calls] of Object.entries(perMode)) report.row([mode, calls.toFixed(1)]);
}
