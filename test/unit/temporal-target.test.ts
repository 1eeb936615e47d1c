/**
 * Where Baton connects, with one precedence rule (the `temporal` CLI's): environment, then
 * baton.config.yaml, then a profile of Temporal's config file, then defaults; and no secret read.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config/config-error';
import { resolveTemporalTarget } from '../../src/config/temporal-target';

const dir = mkdtempSync(join(tmpdir(), 'baton-toml-'));
const toml = join(dir, 'temporal.toml');
writeFileSync(
  toml,
  [
    '[profile.default]',
    'address = "from-profile:7233"',
    'namespace = "profile-ns"',
    '[profile.cloud]',
    'address = "cloud.example:7233"',
    'namespace = "payments.acct"',
    'api_key = "profile-key"',
    '[profile.mtls]',
    'address = "mtls.example:7233"',
    '[profile.mtls.tls]',
    'client_cert_path = "/certs/client.pem"',
    'client_key_path = "/certs/client.key"',
    'server_ca_cert_path = "/certs/ca.pem"',
    'server_name = "temporal.internal"',
    '',
  ].join('\n'),
);
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ TEMPORAL_CONFIG_FILE: toml, ...extra });

describe('the Temporal target', () => {
  it('takes the environment over the config, the config over the profile, the profile over defaults', () => {
    const profile = resolveTemporalTarget({}, env());
    assert.deepEqual(
      [profile.address, profile.namespace, profile.tls, profile.profile],
      ['from-profile:7233', 'profile-ns', false, 'default'],
    );
    assert.match(profile.from.address, /^profile default of .*temporal\.toml$/);

    const config = resolveTemporalTarget({ address: 'from-config:7233' }, env());
    assert.deepEqual(
      [config.address, config.from.address, config.namespace],
      ['from-config:7233', 'temporal.address in the config', 'profile-ns'],
    );

    const fromEnv = resolveTemporalTarget(
      { address: 'from-config:7233', namespace: 'config-ns' },
      env({ TEMPORAL_ADDRESS: 'from-env:7233' }),
    );
    assert.deepEqual([fromEnv.address, fromEnv.from.address, fromEnv.namespace], ['from-env:7233', 'TEMPORAL_ADDRESS', 'config-ns']);

    const none = resolveTemporalTarget({}, { TEMPORAL_CONFIG_FILE: join(dir, 'absent.toml') });
    assert.deepEqual([none.address, none.namespace, none.from.namespace, none.tls], [undefined, 'default', 'the default', false]);
  });

  it('turns TLS on for an API key or certificates, and says where each came from without reading them', () => {
    const cloud = resolveTemporalTarget({}, env({ TEMPORAL_PROFILE: 'cloud' }));
    assert.deepEqual(cloud.apiKey, { data: 'profile-key', from: `profile cloud of ${toml}` });
    assert.ok(cloud.tls && /profile cloud/.test(cloud.tls.from));

    const byEnv = resolveTemporalTarget({ apiKeyFromEnv: 'MY_KEY' }, env({ MY_KEY: 'k' }));
    assert.deepEqual(byEnv.apiKey, { env: 'MY_KEY', from: 'MY_KEY (temporal.apiKeyFromEnv in the config)' });
    assert.deepEqual(
      resolveTemporalTarget({ apiKeyFromEnv: 'MY_KEY' }, env({ MY_KEY: 'k', TEMPORAL_API_KEY: 'x' })).apiKey?.from,
      'TEMPORAL_API_KEY',
    );

    const mtls = resolveTemporalTarget({ profile: 'mtls' }, env());
    assert.ok(mtls.tls);
    assert.deepEqual(mtls.tls.clientCert, { path: '/certs/client.pem', from: `profile mtls of ${toml}` });
    assert.equal(mtls.tls.serverName, 'temporal.internal');
    const yaml = resolveTemporalTarget({ profile: 'mtls', tls: { clientCertFile: '/yaml/c.pem', clientKeyFile: '/yaml/c.key' } }, env());
    assert.ok(yaml.tls);
    assert.deepEqual(yaml.tls.clientCert, { path: '/yaml/c.pem', from: 'temporal.tls.clientCertFile in the config' });
    assert.equal(resolveTemporalTarget({ profile: 'mtls', tls: { disabled: true } }, env()).tls, false, 'an explicit off wins');
  });

  it('names the field or variable when something is missing', () => {
    const refused = (fn: () => unknown, pattern: RegExp) =>
      assert.throws(fn, (err: unknown) => err instanceof ConfigError && pattern.test(err.message));
    refused(
      () => resolveTemporalTarget({}, env({ TEMPORAL_PROFILE: 'staging' })),
      /Temporal profile "staging" \(TEMPORAL_PROFILE\) is not in .*temporal\.toml/,
    );
    refused(() => resolveTemporalTarget({ profile: 'staging' }, env()), /\(temporal\.profile in the config\)/);
    refused(
      () => resolveTemporalTarget({ apiKeyFromEnv: 'NOT_SET_HERE' }, env()),
      /temporal\.apiKeyFromEnv names NOT_SET_HERE, which is not set/,
    );
    refused(
      () => resolveTemporalTarget({ tls: { clientCertFile: '/c.pem' } }, env()),
      /a TLS client certificate is set \(temporal\.tls\.clientCertFile in the config\) but no client key/,
    );
  });
});
