import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { expandEnv, MissingEnvError } from '../../src/config/env-expand';
import { ConfigError, loadConfig, parseConfig, parseConfigWithWarnings } from '../../src/config/load';
import { renameDeprecatedFields, type Renamed } from '../../src/config/renamed-fields';

describe('config', () => {
  it('fills defaults', () => {
    const c = parseConfig({ agents: { 'supplier-qa': { card: 'https://qa.example/' } } });
    assert.equal(c.temporal.taskQueue, 'baton');
    assert.equal(c.agents['supplier-qa']?.allowHttp, false);
    assert.equal(c.agents['supplier-qa']?.observe, 'auto');
  });

  it('names the field and the problem', () => {
    assert.throws(
      () => parseConfig({ agents: { 'supplier-qa': { card: 'not a url', observe: 'sometimes' } } }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /agents\.supplier-qa\.card: must be an absolute http\(s\) URL/);
        assert.match(err.message, /agents\.supplier-qa\.observe: must be one of "auto", "stream", "poll", "push"/);
        return true;
      },
    );
  });

  it('reads a renamed field under its new name, with a warning that names the fix; a removed one is refused', () => {
    const rules: Renamed[] = [{ section: 'agents', from: 'settleWithinMs', to: 'readAfterSendMs', until: '1.1.0' }];
    const old = renameDeprecatedFields({ agents: { slow: { card: 'https://slow.example', settleWithinMs: 0 } } }, rules);
    assert.deepEqual(old.raw, { agents: { slow: { card: 'https://slow.example', readAfterSendMs: 0 } } });
    assert.deepEqual(old.warnings, [
      'agents.slow.settleWithinMs is deprecated: rename it to readAfterSendMs (same meaning; the old name is read until 1.1.0)',
    ]);
    const both = renameDeprecatedFields({ agents: { slow: { card: 'x', settleWithinMs: 0, readAfterSendMs: 200 } } }, rules);
    assert.deepEqual(both.raw, { agents: { slow: { card: 'x', readAfterSendMs: 200 } } });
    assert.deepEqual(both.warnings, ['agents.slow.settleWithinMs is ignored: readAfterSendMs is set too; remove settleWithinMs']);
    const current = parseConfigWithWarnings({ agents: { fast: { card: 'https://fast.example' } } });
    assert.equal(current.config.agents.fast?.readAfterSendMs, 1000);
    assert.deepEqual(current.warnings, []);
    // Past its window (read until 0.3.0), the old name is an unknown field like any other.
    assert.throws(() => parseConfig({ agents: { slow: { card: 'https://slow.example', settleWithinMs: 0 } } }), /settleWithinMs/);
  });

  it('reads a worker deployment with its defaults, and names a bad build id', () => {
    assert.equal(parseConfig({}).worker.deployment, undefined, 'unversioned unless asked');
    assert.deepEqual(parseConfig({ worker: { deployment: { buildId: '0.2.0' } } }).worker.deployment, {
      name: 'baton',
      buildId: '0.2.0',
      behavior: 'pinned',
    });
    assert.throws(
      () => parseConfig({ worker: { deployment: { buildId: 'has spaces' } } }),
      (err: unknown) => err instanceof ConfigError && /worker\.deployment\.buildId: use letters, digits/.test(err.message),
    );
  });

  it('refuses unknown fields', () => {
    assert.throws(
      () => parseConfig({ agents: { a: { card: 'https://a.example', alowHttp: true } } }),
      /agents\.a: unknown field "alowHttp": remove it or fix its spelling/,
    );
    assert.throws(
      () => parseConfig({ agents: { a: { card: 'https://a.example', allowHttp: 'yes' } } }),
      /agents\.a\.allowHttp: must be a boolean \(got a string\)/,
    );
    assert.throws(() => parseConfig({ agents: { a: {} } }), /agents\.a\.card: is required/);
    // A name that breaks the naming rule is named, with the rule.
    assert.throws(
      () => parseConfig({ mcp: { servers: { OrdersDb: { command: 'node', tools: ['lookup'] } } } }),
      /mcp\.servers: the name "OrdersDb" cannot be used: use lower-case letters, digits and -/,
    );
    assert.throws(
      () => parseConfig({ agents: { Supplier_QA: { card: 'https://a.example' } } }),
      /agents: the name "Supplier_QA" cannot be used: use lower-case letters, digits and -/,
    );
    // `agents:` with nothing under it: YAML's null, said as such.
    assert.throws(() => parseConfig({ agents: null }), /agents: must be a record \(got nothing: the section is empty\)/);
  });

  it('says which file is missing or broken', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-config-'));
    assert.throws(() => loadConfig(join(dir, 'nope.yaml')), /does not exist \(set by --config\)/);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'agents: [unclosed');
    assert.throws(() => loadConfig(bad), /bad\.yaml is not valid YAML/);
  });

  it('reads ${NAME} and ${NAME:-default} in string values from the environment, and names what is unset', () => {
    const raw = {
      agents: { qa: { card: '${QA_URL:-http://qa:41241}', allowHttp: true } },
      push: { url: 'http://${HOOK_HOST}:41240', secretFromEnv: 'S' },
      note: ['$${LITERAL}'],
    };
    assert.deepEqual(expandEnv(raw, { HOOK_HOST: 'hooks' }), {
      agents: { qa: { card: 'http://qa:41241', allowHttp: true } },
      push: { url: 'http://hooks:41240', secretFromEnv: 'S' },
      note: ['${LITERAL}'],
    });
    assert.equal((expandEnv(raw, { HOOK_HOST: 'h', QA_URL: 'https://qa.example' }) as typeof raw).agents.qa.card, 'https://qa.example');
    assert.throws(
      () => expandEnv(raw, {}),
      (err: unknown) => err instanceof MissingEnvError && /push\.url: \$\{HOOK_HOST\} is not set/.test(err.message),
    );

    const dir = mkdtempSync(join(tmpdir(), 'baton-config-'));
    const file = join(dir, 'baton.config.yaml');
    writeFileSync(file, 'temporal: { taskQueue: "${BATON_TEST_QUEUE_NAME}" }\n');
    assert.throws(
      () => loadConfig(file),
      (err: unknown) =>
        err instanceof ConfigError &&
        /environment variables that are not set: temporal\.taskQueue: \$\{BATON_TEST_QUEUE_NAME\} is not set/.test(err.message) &&
        !err.message.includes('\n') &&
        err.problems.length === 1,
    );
  });
});
