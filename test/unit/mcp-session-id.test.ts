/** Sealed MCP session ids: what one carries comes back only with the key that sealed it, whole. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sharedKeyProblem } from '../../src/config/shared-key';
import { MCP_SESSION_KEY, openSessionId, sealSessionId, type SessionSeal } from '../../src/mcp/session-id';

const mcpSessionKeyProblem = (variable: string, env: NodeJS.ProcessEnv) => sharedKeyProblem(variable, MCP_SESSION_KEY, env);

const KEY = Buffer.from('k'.repeat(32));
const seal: SessionSeal = {
  caller: { tenant: 'acme', user: 'ops-1' },
  protocolVersion: '2025-06-18',
  client: { name: 'claude-desktop', version: '1.2.3' },
  nonce: 'n-1',
};

describe('MCP session ids', () => {
  it('opens what it sealed, and is visible ASCII', () => {
    const id = sealSessionId(KEY, seal);
    assert.match(id, /^[\x21-\x7e]+$/);
    assert.deepEqual(openSessionId(KEY, id), seal);
    assert.notEqual(sealSessionId(KEY, { ...seal, nonce: 'n-2' }), id, 'two sessions of one caller differ');
  });

  it('opens nothing forged, cut, or sealed with another key', () => {
    const id = sealSessionId(KEY, seal);
    const [payload, mac] = id.split('.') as [string, string];
    const other = Buffer.from(JSON.stringify({ v: 1, t: 'globex', u: 'ops-1', p: '2025-06-18', c: ['x', '1'], n: 'n-1' })).toString(
      'base64url',
    );
    for (const forged of [
      `${other}.${mac}`,
      `${payload}.${mac.slice(0, -2)}`,
      `${payload}x.${mac}`,
      payload,
      `${id}.more`,
      '',
      `${'a'.repeat(3_000)}.${mac}`,
    ])
      assert.equal(openSessionId(KEY, forged), undefined, forged.slice(0, 60));
    assert.equal(openSessionId(Buffer.from('z'.repeat(32)), id), undefined);
  });

  it('cuts what the host named itself to 100 characters', () => {
    const long = sealSessionId(KEY, { ...seal, client: { name: 'x'.repeat(5_000), version: 'y'.repeat(5_000) } });
    assert.ok(long.length < 600, `${long.length} characters`);
    assert.deepEqual(openSessionId(KEY, long)?.client, { name: 'x'.repeat(100), version: 'y'.repeat(100) });
  });

  it('refuses a key shorter than 32 characters', () => {
    assert.match(mcpSessionKeyProblem('K', { K: 'short' }) ?? '', /^api\.mcpSessionKeyFromEnv: K must hold at least 32 characters/);
    assert.equal(mcpSessionKeyProblem('K', { K: 'k'.repeat(32) }), undefined);
    assert.equal(mcpSessionKeyProblem('K', {}), undefined);
  });
});
