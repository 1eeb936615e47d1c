/**
 * `baton agents` and `baton config check`, run as a user runs them, against real agents on loopback.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentStatus } from '../../src/cli/commands/agents';
import type { ConfigReport } from '../../src/cli/commands/config-check';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { runCli, userEnv } from '../../infra/cli-process';
import { RawAgent } from '../helpers/raw-agent';

describe('baton agents and baton config check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-registry-'));
  const raw = new RawAgent();
  let qa: RunningAgent;
  before(async () => {
    qa = await startAgentServer(supplierQa());
    await raw.start();
    raw.card = () => ({
      body: JSON.stringify(
        raw.validCard({
          supportedInterfaces: [{ url: 'https://elsewhere.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        }),
      ),
    });
  });
  after(async () => {
    await qa.close();
    await raw.close();
  });

  it('lists each agent with the state of its card', async () => {
    const config = join(dir, 'agents.yaml');
    writeFileSync(
      config,
      [
        'agents:',
        `  supplier-qa: { card: "${qa.url}", allowHttp: true, allowPrivateNetwork: true }`,
        `  wanderer: { card: "${raw.url}", allowHttp: true, allowPrivateNetwork: true }`,
        `  no-allowance: { card: "${qa.url}", allowHttp: true }`,
        '  gone: { card: "http://127.0.0.1:9/", allowHttp: true, allowPrivateNetwork: true, limits: { connectTimeoutMs: 500 } }',
      ].join('\n'),
    );
    const run = await runCli(['--config', config, 'agents', '--json'], userEnv());
    assert.equal(run.code, 0, run.stderr);
    const byName = Object.fromEntries((JSON.parse(run.stdout) as AgentStatus[]).map((s) => [s.name, s]));
    assert.equal(byName['supplier-qa']?.state, 'ok');
    assert.equal(byName['supplier-qa']?.interface?.url, `${qa.url}/a2a/jsonrpc`);
    assert.match(byName['supplier-qa']?.cardSha256 ?? '', /^[0-9a-f]{64}$/);
    assert.equal(byName.wanderer?.state, 'refused');
    assert.match(byName.wanderer?.reason ?? '', /off the card's origin/);
    assert.equal(byName['no-allowance']?.state, 'refused');
    assert.match(byName['no-allowance']?.reason ?? '', /loopback address and the agent entry does not set allowPrivateNetwork/);
    assert.equal(byName.gone?.state, 'unreachable');

    const text = await runCli(['--config', config, 'agents'], userEnv());
    assert.match(text.stdout, /^supplier-qa +ok +http/m);
  });

  it('checks the served agents: the agents they name, their graphs, the signing key', async () => {
    const config = join(dir, 'served.yaml');
    writeFileSync(
      config,
      [
        'agents:',
        '  qa: { card: "https://qa.example" }',
        'serve:',
        '  signing: { privateKeyFile: /nonexistent/card-key.pem, kid: k1 }',
        '  services:',
        '    gateway:',
        '      description: A gateway',
        '      skills: [{ id: s, name: S, description: D }]',
        '      delegate: { agent: nobody }',
        '    pipeline:',
        '      description: A pipeline',
        '      skills: [{ id: s, name: S, description: D }]',
        '      graph: { nodes: [{ id: a, agent: qa, withRequest: true }, { id: b, agent: qa, text: go, dependsOn: [missing] }] }',
        '    own:',
        '      description: An application workflow',
        '      skills: [{ id: s, name: S, description: D }]',
        '      workflow: { type: taskPushWorkflow }',
        '  push: { keys: { currentKey: p1, keys: { p1: { fromEnv: BATON_TEST_UNSET_PUSH_KEY } } } }',
      ].join('\n'),
    );
    const run = await runCli(['--config', config, 'config', 'check', '--json'], userEnv());
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout) as ConfigReport;
    assert.ok(report.problems.includes('serve.services.gateway.delegate.agent: nobody is not under agents'), report.problems.join('\n'));
    assert.ok(
      report.problems.includes('serve.services.pipeline.graph: node b: depends on unknown node missing'),
      report.problems.join('\n'),
    );
    assert.ok(
      report.problems.includes(
        "serve.services.own.workflow.type: taskPushWorkflow is Baton's own; name your workflow (or use delegate or graph)",
      ),
      report.problems.join('\n'),
    );
    // The key is read only when the services are valid: one fix at a time, each named.
    writeFileSync(
      config,
      readFileSync(config, 'utf8')
        .replace('agent: nobody', 'agent: qa')
        .replace('dependsOn: [missing]', 'dependsOn: [a]')
        .replace('type: taskPushWorkflow', 'type: orderCheck'),
    );
    const again = JSON.parse((await runCli(['--config', config, 'config', 'check', '--json'], userEnv())).stdout) as ConfigReport;
    assert.ok(
      again.problems.some((p) => p.startsWith('serve.signing.privateKeyFile /nonexistent/card-key.pem:')),
      again.problems.join('\n'),
    );
    assert.ok(
      report.problems.some((p) => p.startsWith('serve.push.keys.keys.p1: the variable BATON_TEST_UNSET_PUSH_KEY is not set or empty')),
      report.problems.join('\n'),
    );
  });

  it('names the field and the fix for every problem', async () => {
    const config = join(dir, 'broken.yaml');
    writeFileSync(
      config,
      [
        'agents:',
        '  qa:',
        '    card: qa.example',
        '    observe: sometimes',
        '    alowHttp: true',
        '    auth: { scheme: Bearer, fromEnv: BATON_TEST_UNSET_TOKEN }',
      ].join('\n'),
    );
    const run = await runCli(['--config', config, 'config', 'check', '--json'], userEnv({ BATON_TEST_UNSET_TOKEN: undefined }));
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout) as ConfigReport;
    assert.equal(report.ok, false);
    assert.ok(report.problems.some((p) => p.startsWith('agents.qa.card: must be an absolute http(s) URL')));
    assert.ok(report.problems.some((p) => p === 'agents.qa.observe: must be one of "auto", "stream", "poll", "push"'));
    assert.ok(report.problems.some((p) => p.startsWith('agents.qa: unknown field "alowHttp": remove it or fix its spelling')));

    const good = join(dir, 'good.yaml');
    writeFileSync(
      good,
      ['agents:', '  qa:', '    card: https://qa.example', '    auth: { scheme: Bearer, fromEnv: BATON_TEST_UNSET_TOKEN }'].join('\n'),
    );
    const missing = await runCli(['--config', good, 'config', 'check'], userEnv({ BATON_TEST_UNSET_TOKEN: undefined }));
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, /agents\.qa\.auth: auth\.fromEnv names BATON_TEST_UNSET_TOKEN, which is not set/);
    const present = await runCli(['--config', good, 'config', 'check'], userEnv({ BATON_TEST_UNSET_TOKEN: 'x' }));
    assert.equal(present.code, 0, present.stdout);
    assert.match(present.stdout, /ok \(1 agent\(s\): qa\)/);

    const pushed = join(dir, 'push.yaml');
    writeFileSync(
      pushed,
      [
        'agents:',
        '  qa: { card: "https://qa.example", observe: push }',
        'push: { url: "https://hooks.example/baton", secretFromEnv: BATON_TEST_PUSH_UNSET }',
      ].join('\n'),
    );
    const unsetSecret = await runCli(['--config', pushed, 'config', 'check'], userEnv({ BATON_TEST_PUSH_UNSET: undefined }));
    assert.equal(unsetSecret.code, 1);
    assert.match(unsetSecret.stdout, /push\.secretFromEnv: BATON_TEST_PUSH_UNSET is not set/);
    const noPush = join(dir, 'no-push.yaml');
    writeFileSync(noPush, ['agents:', '  qa: { card: "https://qa.example", observe: push }'].join('\n'));
    assert.match(
      (await runCli(['--config', noPush, 'config', 'check'], userEnv())).stdout,
      /agents\.qa\.observe: push needs a push section/,
    );

    // Callers' tokens: set, 16 characters or more, one per caller; tenants as names that prefix ids.
    const callers = join(dir, 'callers.yaml');
    writeFileSync(
      callers,
      [
        'api:',
        '  callers:',
        '    - { tokenFromEnv: BATON_TEST_SHORT, tenant: acme, user: a }',
        '    - { tokenFromEnv: BATON_TEST_SAME_1, tenant: acme, user: b }',
        '    - { tokenFromEnv: BATON_TEST_SAME_2, tenant: globex, user: c }',
        '    - { tokenFromEnv: BATON_TEST_UNSET_CALLER, tenant: initech, user: d }',
      ].join('\n'),
    );
    const tokens = JSON.parse(
      (
        await runCli(
          ['--config', callers, 'config', 'check', '--json'],
          userEnv({
            BATON_TEST_SHORT: 'short-token',
            BATON_TEST_SAME_1: 'x'.repeat(24),
            BATON_TEST_SAME_2: 'x'.repeat(24),
            BATON_TEST_UNSET_CALLER: undefined,
          }),
        )
      ).stdout,
    ) as ConfigReport;
    assert.deepEqual(tokens.problems, [
      'api.callers: BATON_TEST_SHORT (the token of acme/a) must be set to at least 16 characters; it holds 11',
      "api.callers: BATON_TEST_SAME_2 (the token of globex/c) is acme/b's token too; give each caller its own",
      'api.callers: BATON_TEST_UNSET_CALLER (the token of initech/d) must be set to at least 16 characters; it is not set',
    ]);
    writeFileSync(callers, ['api:', '  callers:', '    - { tokenFromEnv: BATON_TEST_SHORT, tenant: "acme:east", user: a }'].join('\n'));
    const tenant = JSON.parse((await runCli(['--config', callers, 'config', 'check', '--json'], userEnv())).stdout) as ConfigReport;
    assert.ok(
      tenant.problems.some((p) => p.startsWith('api.callers.0.tenant: use letters, digits and . _ @ -')),
      tenant.problems.join('\n'),
    );

    // MCP servers workflows call: one transport each, an allowlist, the credential and variables set.
    const mcp = join(dir, 'mcp.yaml');
    writeFileSync(
      mcp,
      [
        'mcp:',
        '  servers:',
        '    both: { command: node, url: "https://tools.example/mcp", tools: [lookup] }',
        '    none-listed: { command: node, tools: [] }',
      ].join('\n'),
    );
    const shape = JSON.parse((await runCli(['--config', mcp, 'config', 'check', '--json'], userEnv())).stdout) as ConfigReport;
    assert.ok(
      shape.problems.includes('mcp.servers.both: set exactly one of command (stdio) or url (Streamable HTTP)'),
      shape.problems.join('\n'),
    );
    assert.ok(shape.problems.includes('mcp.servers.none-listed.tools: list the tools workflows may call'), shape.problems.join('\n'));
    writeFileSync(
      mcp,
      [
        'mcp:',
        '  servers:',
        '    remote: { url: "https://tools.example/mcp", auth: { scheme: Bearer, fromEnv: BATON_TEST_MCP_UNSET }, tools: [lookup] }',
        '    local: { command: node, env: [BATON_TEST_MCP_VAR_UNSET], tools: [lookup] }',
      ].join('\n'),
    );
    const unset = await runCli(
      ['--config', mcp, 'config', 'check'],
      userEnv({ BATON_TEST_MCP_UNSET: undefined, BATON_TEST_MCP_VAR_UNSET: undefined }),
    );
    assert.equal(unset.code, 1);
    assert.match(
      unset.stdout,
      /mcp\.servers\.remote\.auth\.fromEnv names BATON_TEST_MCP_UNSET, which is not set; set it before a worker calls this server/,
    );
    assert.match(unset.stdout, /mcp\.servers\.local\.env: BATON_TEST_MCP_VAR_UNSET is not set; the server would start without it/);
  });

  it('refuses a field renamed before the support window, naming it', async () => {
    const config = join(dir, 'renamed.yaml');
    writeFileSync(
      config,
      ['agents:', '  slow: { card: "http://127.0.0.1:9/", allowHttp: true, allowPrivateNetwork: true, settleWithinMs: 0 }'].join('\n'),
    );
    const checked = await runCli(['--config', config, 'config', 'check'], userEnv());
    assert.equal(checked.code, 1, checked.stdout);
    assert.match(checked.stdout, /agents\.slow: .*settleWithinMs/);
  });

  it('says which identity each agent and caller class uses, never a secret, and what it cannot read', async () => {
    const config = join(dir, 'identity.yaml');
    const secret = 'identity-check-secret-0123456789';
    writeFileSync(
      config,
      [
        'agents:',
        '  erp:',
        '    card: "https://erp.example"',
        '    oauth2: { tokenUrl: "https://login.example/oauth2/token", clientId: baton-erp, clientSecret: { fromEnv: BATON_TEST_ERP_SECRET }, scopes: [erp.read], resource: "https://erp.example" }',
        '  ledger:',
        '    card: "https://ledger.example"',
        '    apiKey: { in: header, name: X-Api-Key, fromEnv: BATON_TEST_LEDGER_KEY }',
        '    tls: { certFile: /nonexistent/client.pem, keyFile: /nonexistent/client.key }',
        'api:',
        '  issuers: [{ issuer: "https://login.example", audience: baton, tenantClaim: tid }]',
        '  signIn: { oidc: { issuer: "https://login.example", clientId: baton-web, tenantClaim: tid } }',
      ].join('\n'),
    );
    const run = await runCli(
      ['--config', config, 'config', 'check'],
      userEnv({ BATON_TEST_ERP_SECRET: secret, BATON_TEST_LEDGER_KEY: undefined }),
    );
    assert.equal(run.code, 1, run.stdout);
    assert.ok(!run.stdout.includes(secret), 'no secret is printed');
    assert.match(
      run.stdout,
      /agent erp: OAuth 2\.0 client credentials at https:\/\/login\.example\/oauth2\/token as client baton-erp \(client_secret_basic with the secret in \$BATON_TEST_ERP_SECRET\), scopes erp\.read, resource https:\/\/erp\.example/,
    );
    assert.match(
      run.stdout,
      /agent ledger: API key in header X-Api-Key from \$BATON_TEST_LEDGER_KEY; client certificate \/nonexistent\/client\.pem/,
    );
    assert.match(run.stdout, /agents\.ledger\.apiKey\.fromEnv names BATON_TEST_LEDGER_KEY, which is not set/);
    assert.match(run.stdout, /agents\.ledger\.tls: \/nonexistent\/client\.pem cannot be read/);
    assert.match(
      run.stdout,
      /callers: JWT access tokens from https:\/\/login\.example \(audience baton, RS256\/PS256\/ES256\/EdDSA, keys from discovery; tenant from claim tid, user from claim sub\)/,
    );
    assert.match(run.stdout, /callers: web app operators: OpenID Connect at https:\/\/login\.example as client baton-web \(public, PKCE\)/);
    const json = JSON.parse(
      (await runCli(['--config', config, 'config', 'check', '--json'], userEnv({ BATON_TEST_ERP_SECRET: secret }))).stdout,
    ) as ConfigReport;
    assert.ok(json.identity?.agents.erp?.startsWith('OAuth 2.0 client credentials'));
    assert.ok(!JSON.stringify(json).includes(secret));
  });
});
