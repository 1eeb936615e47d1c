/**
 * Bad connection settings, as a user meets them: each is one line that names the field or variable,
 * exit 1, and nothing is started. (A wrong or expired token and a missing client certificate need a
 * secured server: the cluster tier tests those.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { makeCertificates, type ClusterCertificates } from '../../infra/cluster/certs';
import { runCli, userEnv, saysOneLine } from '../../infra/cli-process';
import { testServer } from '../helpers/temporal';

describe('connection settings that cannot work', () => {
  let certs: ClusterCertificates;
  let dir: string;
  let address: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-conn-'));
    certs = makeCertificates(join(dir, 'certs'));
    address = (await testServer()).address;
  });
  const configWith = (tls: string): string => {
    const file = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, `temporal: { address: "${address}", tls: ${tls} }\ncaller: { tenant: conn, user: ops }\n`);
    return file;
  };

  it('an unreadable certificate, a key of another certificate, a file that is not PEM', async () => {
    const missing = configWith(`{ clientCertFile: "${dir}/absent.pem", clientKeyFile: "${certs.clientKey}" }`);
    saysOneLine(
      await runCli(['ls'], userEnv({ BATON_CONFIG: missing })),
      1,
      /^baton: cannot read the TLS client certificate .*absent\.pem \(temporal\.tls\.clientCertFile in the config\): ENOENT$/,
    );
    const stray = configWith(`{ clientCertFile: "${certs.clientCert}", clientKeyFile: "${certs.strayKey}" }`);
    const id = `dlg-conn-${Date.now()}`;
    saysOneLine(
      await runCli(['delegate', '--agent', 'supplier-qa', '--text', 'hi', '--id', id], userEnv({ BATON_CONFIG: stray })),
      1,
      /^baton: the TLS client key \(temporal\.tls\.clientKeyFile in the config\) does not belong to the client certificate \(temporal\.tls\.clientCertFile in the config\)/,
    );
    const notPem = configWith(`{ serverCaFile: "${certs.clientKey}" }`);
    saysOneLine(
      await runCli(['worker'], userEnv({ BATON_CONFIG: notPem })),
      1,
      /^baton: the TLS server CA certificate \(temporal\.tls\.serverCaFile in the config\) is not a PEM certificate$/,
    );
    // Nothing was started: the same delegation id, asked of the plain server, does not exist.
    const plain = join(dir, 'plain.yaml');
    writeFileSync(plain, `temporal: { address: "${address}" }\ncaller: { tenant: conn, user: ops }\n`);
    saysOneLine(await runCli(['show', id], userEnv({ BATON_CONFIG: plain })), 1, new RegExp(`no delegation with id ${id}`));
    // config check says the same, among its problems, and what it would connect with.
    const check = await runCli(['config', 'check'], userEnv({ BATON_CONFIG: stray }));
    assert.equal(check.code, 1);
    assert.match(check.stdout, /does not belong to the client certificate/);
  });

  it('an unknown profile, and an API key variable that is not set', async () => {
    const env = userEnv({ TEMPORAL_PROFILE: 'staging', TEMPORAL_CONFIG_FILE: join(dir, 'none.toml') });
    saysOneLine(
      await runCli(['ls'], env),
      1,
      /^baton: Temporal profile "staging" \(TEMPORAL_PROFILE\) is not in .*none\.toml: name a profile it has, or unset TEMPORAL_PROFILE$/,
    );
    const keyless = join(dir, 'keyless.yaml');
    writeFileSync(keyless, `temporal: { address: "${address}", apiKeyFromEnv: BATON_TEST_NO_SUCH_KEY }\n`);
    saysOneLine(
      await runCli(['setup'], userEnv({ BATON_CONFIG: keyless })),
      1,
      /^baton: temporal\.apiKeyFromEnv names BATON_TEST_NO_SUCH_KEY, which is not set/,
    );
  });

  it('config check reports what it would connect with, and never a secret', async () => {
    const file = join(dir, 'good.yaml');
    writeFileSync(
      file,
      `temporal: { address: "temporal.example:7233", namespace: payments, apiKeyFromEnv: PAY_KEY, tls: { serverCaFile: "${certs.ca}", serverName: temporal.example } }\n`,
    );
    const run = await runCli(['config', 'check', '--json'], userEnv({ BATON_CONFIG: file, PAY_KEY: 'very-secret-api-key' }));
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).temporal, {
      address: 'temporal.example:7233',
      addressFrom: 'temporal.address in the config',
      namespace: 'payments',
      namespaceFrom: 'temporal.namespace in the config',
      tls: {
        on: true,
        from: 'temporal.tls.serverCaFile in the config',
        serverCa: 'temporal.tls.serverCaFile in the config',
        serverName: 'temporal.example',
      },
      credential: 'API key from PAY_KEY (temporal.apiKeyFromEnv in the config)',
    });
    const text = await runCli(['config', 'check'], userEnv({ BATON_CONFIG: file, PAY_KEY: 'very-secret-api-key' }));
    assert.match(text.stdout, /^ {2}temporal: temporal\.example:7233 \(temporal\.address in the config\), namespace payments/m);
    assert.doesNotMatch(text.stdout + text.stderr + run.stdout, /very-secret-api-key|BEGIN/);
  });
});
