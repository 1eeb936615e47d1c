/**
 * docker-compose.yml, checked without an engine: Debian's docker-compose accepts it (`config`), every
 * service docs/operations.md names is in it and every service in it is documented, the namespace is
 * set up by `baton setup`, the Baton config it mounts loads with the environment it sets, and the
 * secured override (deploy/compose.secure.yml) wires mTLS and tokens into every Baton service.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { encryptionCodec } from '../../src/codec/data-converter';
import { loadConfig } from '../../src/config/load';
import type { EncryptionConfig } from '../../src/config/schema';
import { demoAgents } from '../../src/demo/catalog';
import { CallerTokens } from '../../src/auth/caller-tokens';
import { projectRoot } from '../../src/runtime/project-root';
import { TEMPORAL_SERVER_VERSION } from '../../infra/cluster/server-binary';
import { runCli, userEnv } from '../../infra/cli-process';

const run = promisify(execFile);
const root = projectRoot();
const SECRETS = {
  BATON_PUSH_SECRET: 'push-secret-for-the-compose-test',
  BATON_UI_TOKEN: 'ui-token-for-the-compose-test',
  POSTGRES_PASSWORD: 'pg-password',
  BATON_KEY_K1: randomBytes(32).toString('base64'),
  BATON_CODEC_TOKEN: 'codec-token-for-the-compose-test',
  BATON_S3_SECRET_ACCESS_KEY: 'minio-secret-for-the-compose-test',
  GRAFANA_ADMIN_PASSWORD: 'grafana-password-for-the-compose-test',
};

async function compose(args: string[], env: Record<string, string | undefined>, files = ['docker-compose.yml']) {
  const clean = { ...process.env };
  for (const k of [...Object.keys(SECRETS), 'TEMPORAL_API_KEY', 'TEMPORAL_JWT_KEY_SOURCE']) delete clean[k];
  const f = files.flatMap((file) => ['-f', join(root, file)]);
  return run('docker-compose', [...f, ...args], { cwd: root, env: { ...clean, ...env } });
}

interface Service {
  command?: string[] | string;
  environment?: Record<string, string>;
  volumes?: (string | { source?: string; target?: string })[];
  deploy?: { replicas?: number };
}

describe('docker-compose.yml', () => {
  it('is accepted by docker-compose config, and refuses to start without its secrets', async () => {
    const { stdout } = await compose(['config'], SECRETS);
    assert.ok((parseYaml(stdout) as { services: Record<string, unknown> }).services['baton-worker']);
    for (const secret of ['BATON_UI_TOKEN', 'BATON_KEY_K1', 'BATON_CODEC_TOKEN', 'BATON_S3_SECRET_ACCESS_KEY', 'GRAFANA_ADMIN_PASSWORD']) {
      await assert.rejects(compose(['config'], { ...SECRETS, [secret]: undefined }), (err: { stderr?: string }) =>
        new RegExp(`set ${secret}`).test(err.stderr ?? ''),
      );
    }
  });

  it('has every service docs/operations.md names, and nothing undocumented', async () => {
    const services = (await compose(['config', '--services'], SECRETS)).stdout.split('\n').filter(Boolean).sort();
    const doc = readFileSync(join(root, 'docs', 'operations.md'), 'utf8');
    // The services table: rows whose first cell is a service name in backticks.
    const named = [...doc.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1] ?? '').sort();
    assert.ok(named.length >= 8, 'the docs list the services');
    assert.deepEqual(named, services);
  });

  it('registers the search attributes the code uses, runs real CLI commands, and mounts a config that loads', async () => {
    const { services } = parseYaml((await compose(['config'], SECRETS)).stdout) as { services: Record<string, Service> };
    // The namespace is set up by `baton setup`: the search attributes are the code's own list.
    const setup = JSON.stringify(services['temporal-setup']?.command);
    assert.match(setup, /node lib\/src\/cli\/main\.js setup/);
    assert.equal(setup.match(/\bBaton[A-Za-z]+/g), null, 'no list of its own to drift');
    // The server is the version the cluster tier runs.
    assert.equal((services.temporal as { image?: string }).image, `temporalio/auto-setup:${TEMPORAL_SERVER_VERSION}`);
    assert.equal(services['baton-worker']?.deploy?.replicas, 2);

    const help = await runCli(['--help'], userEnv());
    assert.match(help.stdout, /^ {2}setup\b/m, 'temporal-setup runs `baton setup`, a real command');
    for (const name of ['baton-worker', 'baton-webhook', 'baton-ui', 'demo-agents']) {
      const command = ([] as string[]).concat(services[name]?.command ?? [])[0] ?? '';
      assert.match(help.stdout, new RegExp(`^ {2}${command}\\b`, 'm'), `${name} runs \`baton ${command}\`, a real command`);
    }

    // The UI's environment, with the mounted file in place of /etc/baton: the config loads, and the
    // token the compose file hands over is the caller's.
    const ui = services['baton-ui'] as Service;
    const env = ui.environment ?? {};
    const saved = { ...process.env };
    try {
      Object.assign(process.env, env);
      const { config } = loadConfig(join(root, 'deploy', 'baton.config.yaml'));
      assert.equal(config.temporal.address, 'temporal:7233');
      // Every demo agent serve-agents --all serves is registered, on its port.
      assert.deepEqual(
        Object.entries(config.agents).map(([name, entry]) => [name, entry.card]),
        demoAgents().map((a, i) => [a.name, `http://demo-agents:${41241 + i}`]),
      );
      assert.equal(config.push?.url, 'http://baton-webhook:41240');
      // Production shape: payloads encrypted with the key the environment holds, artifacts in MinIO.
      assert.equal(encryptionCodec(config.encryption as EncryptionConfig).current, 'k1');
      assert.deepEqual(
        [config.artifacts.store, config.artifacts.s3?.endpoint, config.artifacts.s3?.bucket],
        ['s3', 'http://minio:9000', 'baton-artifacts'],
      );
      assert.equal(env.BATON_CODEC_TOKEN, SECRETS.BATON_CODEC_TOKEN, 'baton-ui has the codec token');
      assert.equal(
        services['temporal-ui']?.environment?.TEMPORAL_CODEC_ENDPOINT,
        `http://localhost:41230/codec/${SECRETS.BATON_CODEC_TOKEN}`,
        'the Temporal Web UI decodes through baton-ui',
      );
      assert.deepEqual(config.encryption?.codecServer.corsOrigins, ['http://localhost:8233']);
      assert.equal(config.api.listen.host, '0.0.0.0');
      assert.deepEqual(CallerTokens.fromConfig(config.api).callerFor(`Bearer ${SECRETS.BATON_UI_TOKEN}`), {
        tenant: 'local',
        user: 'operator',
      });

      // Prometheus scrapes each Baton service where the config has it listen (promtool, Prometheus's
      // own checker, accepts the file), and Grafana is provisioned with that Prometheus and the dashboard.
      await run('promtool', ['check', 'config', join(root, 'deploy', 'prometheus.yml')]);
      const scrape = parseYaml(readFileSync(join(root, 'deploy', 'prometheus.yml'), 'utf8')) as {
        scrape_configs: {
          job_name: string;
          static_configs?: { targets: string[] }[];
          dns_sd_configs?: { names: string[]; port: number }[];
        }[];
      };
      const targets = Object.fromEntries(
        scrape.scrape_configs.map((c) => [
          c.job_name,
          c.static_configs?.[0]?.targets[0] ?? `${c.dns_sd_configs?.[0]?.names[0]}:${c.dns_sd_configs?.[0]?.port}`,
        ]),
      );
      const port = (address: string | undefined) => address?.split(':')[1];
      const metrics = config.telemetry?.metrics;
      assert.deepEqual(targets, {
        'baton-worker': `baton-worker:${port(metrics?.worker)}`,
        'baton-ui': `baton-ui:${port(metrics?.ui)}`,
        'baton-webhook': `baton-webhook:${port(metrics?.webhook)}`,
      });
      assert.equal(metrics?.worker?.split(':')[0], '0.0.0.0', 'the endpoints listen beyond the container');
      const datasource = readFileSync(join(root, 'deploy', 'grafana', 'provisioning', 'datasources', 'prometheus.yml'), 'utf8');
      assert.match(datasource, /url: http:\/\/prometheus:9090/);
      const volumes = JSON.stringify(services.grafana?.volumes);
      assert.match(volumes, /deploy\/grafana\/dashboards/);
      assert.match(volumes, /deploy\/grafana\/provisioning/);
      const dashboard = JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'dashboards', 'baton.json'), 'utf8')) as {
        panels: { datasource: { uid: string } }[];
      };
      assert.ok(
        dashboard.panels.every((p) => datasource.includes(`uid: ${p.datasource.uid}`)),
        'every panel reads the provisioned data source',
      );
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
  it('has a secured shape (deploy/compose.secure.yml): mTLS and the JWT authorizer, every Baton service with a certificate and a token', async () => {
    const files = ['docker-compose.yml', 'deploy/compose.secure.yml'];
    const secure = { ...SECRETS, TEMPORAL_API_KEY: 'a-token', TEMPORAL_JWT_KEY_SOURCE: 'https://keys.example/jwks.json' };
    const { services } = parseYaml((await compose(['config'], secure, files)).stdout) as { services: Record<string, Service> };
    const temporal = services.temporal?.environment ?? {};
    assert.equal(temporal.TEMPORAL_TLS_REQUIRE_CLIENT_AUTH, 'true');
    assert.equal(temporal.TEMPORAL_AUTH_AUTHORIZER, 'default');
    assert.equal(temporal.TEMPORAL_JWT_KEY_SOURCE1, 'https://keys.example/jwks.json');
    for (const name of ['temporal-setup', 'baton-worker', 'baton-webhook', 'baton-ui']) {
      const env = services[name]?.environment ?? {};
      assert.equal(env.TEMPORAL_TLS_CLIENT_CERT_PATH, '/etc/baton/certs/client.pem', `${name} presents a client certificate`);
      assert.equal(env.TEMPORAL_API_KEY, 'a-token', `${name} sends the token`);
    }
    await assert.rejects(compose(['config'], { ...secure, TEMPORAL_API_KEY: undefined }, files), (err: { stderr?: string }) =>
      /set TEMPORAL_API_KEY/.test(err.stderr ?? ''),
    );
  });
});
