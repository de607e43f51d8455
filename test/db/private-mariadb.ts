/**
 * A private MariaDB server for the tests that kill and pause it (test/db/nemesis.test.ts): its
 * own directory and free port on loopback, durable settings (so that a kill -9 loses nothing
 * committed), and the shell commands a cluster file gives for it. The shared servers of
 * scripts/test-databases.sh are never touched: other test files use them at the same time.
 *
 * Takes: nothing. Gives: the URL, the cluster file node (kill / start / pause / resume commands
 * naming only this server's PID file) and `stop()`. Invariant: the server is stopped (resumed
 * first, if paused) when the test process exits, whatever happened.
 */

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { scratchDir } from '../support/scratch.ts';

export interface PrivateMariadb {
  url: string;
  dir: string;
  node: { name: string; url: string; kill: string; start: string; pause: string; resume: string };
  stop(): void;
}

/** True if this machine can run one (Debian's mariadb-server). */
export function canRunMariadb(): boolean {
  return spawnSync('sh', ['-c', 'command -v mariadbd && command -v mariadb-install-db && command -v mariadb-admin'], { stdio: 'ignore' }).status === 0;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const isRoot = process.getuid?.() === 0;

export async function startPrivateMariadb(): Promise<PrivateMariadb> {
  const dir = scratchDir('polysi-nemesis-db-');
  chmodSync(dir, 0o755); // the server runs as `mysql` under root
  const data = join(dir, 'data');
  mkdirSync(data);
  if (isRoot) execFileSync('chown', ['mysql', data]);
  const user = isRoot ? 'mysql' : (process.env['USER'] ?? 'nobody');
  execFileSync('mariadb-install-db', [`--user=${user}`, `--datadir=${data}`, '--skip-test-db', '--auth-root-authentication-method=socket'], { stdio: 'ignore' });
  const port = await freePort();
  const sock = join(data, 'mysqld.sock'), pidFile = join(data, 'mysqld.pid');
  const start = join(dir, 'start.sh');
  // As a cluster file's start must: returns once the server answers (so the next fault does not
  // find it half started), and never starts a second server on the same files.
  const ping = `mariadb-admin --no-defaults --socket=${sock} -uroot ping >/dev/null 2>&1`;
  // As root, mariadbd drops to mysql itself (--user), with no `runuser` parent: util-linux's
  // runuser stops itself when its child is stopped (kill -STOP, the pause fault) and stays
  // stopped after the child's kill -CONT, a process left behind after the test.
  writeFileSync(start, `#!/bin/sh\n${ping} && exit 0\nmariadbd --no-defaults ${isRoot ? '--user=mysql ' : ''}--datadir=${data} --socket=${sock} ` +
    `--port=${port} --bind-address=127.0.0.1 --pid-file=${pidFile} --log-error=${join(data, 'server.log')} --skip-log-bin ` +
    `--max-connections=200 >/dev/null 2>&1 </dev/null &\n` +
    `for i in $(seq 1 300); do ${ping} && exit 0; sleep 0.1; done\nexit 1\n`, { mode: 0o755 });
  const pid = () => (existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : '');
  const stop = () => {
    const p = pid();
    // Only a process that is this server (a stale PID file could name someone else's process).
    if (p === '' || !/^[0-9]+$/.test(p) || !existsSync(`/proc/${p}/cmdline`) || !readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(data)) return;
    // Waits until it is gone: its files are then still, and the directory can be removed.
    spawnSync('sh', ['-c', `kill -CONT ${p}; kill -9 ${p}; for i in $(seq 1 100); do kill -0 ${p} 2>/dev/null || exit 0; sleep 0.05; done`], { stdio: 'ignore' });
  };
  process.prependOnceListener('exit', stop); // before scratch.ts removes the directory
  execFileSync('sh', [start]);
  const admin = (args: string[]) => spawnSync(args[0]!, ['--no-defaults', `--socket=${sock}`, '-uroot', ...args.slice(1)], { encoding: 'utf8' });
  const sql = "CREATE DATABASE polysi; CREATE USER 'polysi'@'127.0.0.1' IDENTIFIED BY 'pw'; GRANT ALL ON polysi.* TO 'polysi'@'127.0.0.1';";
  const r = admin(['mariadb', '-e', sql]);
  if (r.status !== 0) throw new Error(`private MariaDB in ${dir} did not start: ${r.stderr}`);
  const url = `mysql://polysi:pw@127.0.0.1:${port}/polysi`;
  // `$(cat PIDFILE)`: the PID of this server only, read when the command runs (a restart changes it).
  return {
    url, dir, stop,
    node: {
      name: 'n1', url, start,
      kill: `kill -9 $(cat ${pidFile})`, pause: `kill -STOP $(cat ${pidFile})`, resume: `kill -CONT $(cat ${pidFile})`,
    },
  };
}
