import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareVersions, inSupportWindow, OLDEST_SUPPORTED, refuseOutsideWindow } from '../../src/shared/support-window';
import { formatUpgradeCheck } from '../../src/cli/commands/upgrade-check';

describe('the support window', () => {
  it('compares versions by number, not as text', () => {
    assert.ok(compareVersions('0.10.0', '0.9.0') > 0);
    assert.ok(compareVersions('0.8.9', '0.9.0') < 0);
    assert.equal(compareVersions('1.0.0', '1.0.0'), 0);
    assert.ok(compareVersions('1.0.0-rc.1', '0.9.0') > 0);
  });

  it('runs what the oldest supported release or a later one started, and what no starter marked', () => {
    assert.equal(OLDEST_SUPPORTED, '0.9.0');
    for (const v of ['0.9.0', '0.9.1', '1.0.0', '1.2.3', undefined]) assert.equal(inSupportWindow(v), true, String(v));
    for (const v of ['0.1.0', '0.2.1', '0.8.0']) assert.equal(inSupportWindow(v), false, v);
  });

  it('says what happened and what to do, for delegations and graphs', () => {
    assert.equal(refuseOutsideWindow('delegation', '0.9.0'), undefined);
    assert.match(
      refuseOutsideWindow('graph', '0.8.0') ?? '',
      /^this graph was started by Baton 0\.8\.0; Baton \d+\.\d+\.\d+ runs graphs started by 0\.9\.0 or later\. Run it to its end on a 0\.9\.0 worker .*`baton upgrade-check`/,
    );
  });

  it('lists what to drain, or says there is nothing', () => {
    assert.match(formatUpgradeCheck([], 3, 'default'), /^namespace default: 3 running .* none started before Baton 0\.9\.0/);
    const listed = formatUpgradeCheck([{ workflowId: 'dlg-1', type: 'delegationWorkflow', startedBy: '0.8.0', startTime: 't0' }], 4, 'ns');
    assert.match(listed, /^namespace ns: 1 running workflow\(s\) were started before Baton 0\.9\.0/);
    assert.match(listed, /\n {2}dlg-1 {2}delegationWorkflow {2}started by 0\.8\.0 at t0\n/);
  });
});
