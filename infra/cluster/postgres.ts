/**
 * PostgreSQL from Debian, run in a private folder on a private port, as an unprivileged user (the
 * `postgres` account when we are root: initdb refuses root). Started, stopped and restarted by us.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';

export interface RunningPostgres {
  port: number;
  user: string;
  dataDir: string;
  stop(): void;
  start(): void;
}

/** The folder with initdb and pg_ctl (Debian keeps them off PATH). */
export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl): npm run setup -- --cluster installs it');
  return join(root, newest, 'bin');
}

function asOwner(cmd: string, args: string[], owner: string | undefined): string {
  const [file, argv] = owner ? ['runuser', ['-u', owner, '--', cmd, ...args]] : [cmd, args];
  const run = spawnSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.status !== 0)
    throw new Error(`${cmd.split('/').pop()} failed: ${(run.stderr || run.stdout).trim().split('\n').slice(-3).join(' ')}`);
  return run.stdout;
}

/** Creates the cluster in `dir` (database user `temporal`, trust auth on loopback) and starts it on `port`. */
export function startPostgres(dir: string, port: number): RunningPostgres {
  const bin = postgresBin();
  const owner = userInfo().uid === 0 ? 'postgres' : undefined;
  const dataDir = join(dir, 'data');
  mkdirSync(dir, { recursive: true });
  if (owner) {
    const uid = Number(execFileSync('id', ['-u', owner], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', owner], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  if (!existsSync(join(dataDir, 'PG_VERSION')))
    asOwner(join(bin, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'temporal', '--no-sync'], owner);
  const pgCtl = (action: string, extra: string[] = []) => asOwner(join(bin, 'pg_ctl'), ['-D', dataDir, ...extra, action], owner);
  const start = () =>
    void pgCtl('start', [
      '-w',
      '-t',
      '60',
      '-l',
      join(dir, 'postgres.log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    ]);
  start();
  return { port, user: 'temporal', dataDir, start, stop: () => void pgCtl('stop', ['-m', 'fast', '-w']) };
}
