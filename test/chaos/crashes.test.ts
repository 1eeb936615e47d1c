/**
 * The crash campaign's short form: two runs of delegations with the worker SIGKILLed at a random
 * moment, and one Temporal server restart on its SQLite file mid-run. Nothing lost, no duplicate
 * remote task, no wrong outcome. `npm run chaos` runs 50 kills for docs/RELIABILITY.md.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FaultAgent } from '../../infra/fault-agent';
import { campaignAgent, killRun, restartServerRun } from './kill-campaign';

describe('chaos: crashes and restarts', () => {
  let agent: FaultAgent;
  let streamingAgent: FaultAgent;
  before(async () => {
    agent = await campaignAgent(11).start();
    streamingAgent = await campaignAgent(12, 'stream').start();
  });
  after(async () => {
    await agent.close();
    await streamingAgent.close();
  });

  it('loses nothing and duplicates nothing when the worker is SIGKILLed mid-run', { timeout: 170_000 }, async () => {
    let seed = 5;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (const run of [1, 2]) {
      // One polled agent, one that streams: both send paths meet the kill.
      const report = await killRun(run === 1 ? agent : streamingAgent, run, 3, random);
      assert.deepEqual(
        { lost: report.lost, duplicates: report.duplicates, wrongOutcomes: report.wrongOutcomes },
        { lost: 0, duplicates: 0, wrongOutcomes: 0 },
        JSON.stringify(report),
      );
    }
  });

  it('carries on when the Temporal server is stopped and restarted on its SQLite file', { timeout: 170_000 }, async () => {
    const report = await restartServerRun(agent, 1, 3);
    assert.deepEqual(
      { lost: report.lost, duplicates: report.duplicates, wrongOutcomes: report.wrongOutcomes },
      { lost: 0, duplicates: 0, wrongOutcomes: 0 },
      JSON.stringify(report),
    );
  });
});
