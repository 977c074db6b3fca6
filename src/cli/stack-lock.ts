import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, realpath, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { z } from 'zod';
import { canonicalOrigin } from '../api/base-url.js';
import { sleep } from '../api/sleep.js';
import { LOCK_URL_ENV } from '../env.js';
import { describeLockHolder, EdgeformError, StackLockedError, type LockHolder } from '../errors.js';

/** A lock not refreshed for this long belongs to a run that died (on another host): the next apply takes it over. */
const STALE_MS = 60_000;

/** Name of the variable that moves the per-machine directory of the locks of named stacks (default: `<tmpdir>/edgeform-locks`). */
export const LOCK_DIR_ENV = 'EDGEFORM_LOCK_DIR';

/** What an apply prints and records about itself, and where it is told what happened to its locks. */
export interface StackLockOptions {
  /** The command line to record (`edgeform apply prod.yaml --auto-approve`), secrets already redacted. */
  command: string;
  /** The CI job the apply runs in (ciJobUrl), recorded with the holder. */
  job?: string;
  /** Told when a lock left by a dead run is taken over, or a held lock could not be kept. */
  warn: (message: string) => void;
  /** --lock-timeout: how long, in all, to wait for locks others hold (with backoff); 0 or absent: refuse at once. */
  lockTimeoutMs?: number;
  /** Told once per lock waited for, before the first wait. */
  waiting?: (message: string) => void;
  /** Ends a wait for a lock (an interrupt); the wait rejects with its reason. */
  signal?: AbortSignal;
}

/** The first pause between tries of a held lock; each pause doubles, up to LOCK_RETRY_MAX_MS. */
const LOCK_RETRY_FIRST_MS = 500;
const LOCK_RETRY_MAX_MS = 10_000;

/**
 * The URL of the CI job this run is part of, when the CI says: GitHub Actions'
 * `GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID`, GitLab's `CI_JOB_URL`.
 */
export function ciJobUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID) return `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  return env.CI_JOB_URL || undefined;
}

/**
 * The apply locks of one run, taken one after the other and released together (last taken first):
 * the stack's path lock (holdPath) before the stack is read, its name lock (holdName) once its
 * `name:` and platform are known, before anything is read from the platform.
 */
export class StackLocks {
  private readonly held: Array<() => Promise<void>> = [];
  /** Until when locks others hold are waited for (--lock-timeout), from when the apply started. */
  private readonly deadline: number;

  constructor(private readonly options: StackLockOptions) {
    this.deadline = Date.now() + (options.lockTimeoutMs ?? 0);
  }

  /**
   * Takes the lock of the stack at `stackPath` (a file or a directory), keyed by what it is: its
   * real path, whatever symlinks or `..` the path takes to it. It lives next to the stack, as
   * `<real path>.edgeform.lock`. Throws StackLockedError while another apply holds it.
   */
  async holdPath(stackPath: string): Promise<void> {
    const lockPath = await stackLockPath(stackPath);
    this.held.push(await this.waitWhileLocked(() => takeLock(lockPath, stackPath, this.options)));
  }

  /**
   * Takes the lock of the stack named `name` on the platform at `baseUrl` (keyed by its canonical
   * origin, so `http://127.0.0.1:8787` and `http://localhost:8787/` are one platform), so two
   * checkouts of one named stack on this machine exclude each other. It lives in the machine's
   * lock directory (namedStackLockPath). With EDGEFORM_LOCK_URL, it then takes the same lock
   * across machines: a PostgreSQL advisory lock of the same key (see holdAcrossMachines).
   * Throws StackLockedError while another apply holds either.
   */
  async holdName(name: string, baseUrl: string, env: NodeJS.ProcessEnv): Promise<void> {
    const dir = lockDirectory(env);
    await ensureLockDirectory(dir);
    const locked = `the stack named "${name}" on ${baseUrl}`;
    this.held.push(await this.waitWhileLocked(() => takeLock(namedStackLockPath(name, baseUrl, env), locked, this.options)));
    const url = env[LOCK_URL_ENV]?.trim();
    if (url) await this.holdAcrossMachines(url, name, stackLockKey(name, baseUrl), locked);
  }

  /**
   * Takes the stack's lock in the lock database at `url` (EDGEFORM_LOCK_URL): a session-level
   * PostgreSQL advisory lock whose key is the named lock's (stackLockKey), on a session held
   * open until release and named after this apply (command, stack, host, CI job), which records
   * the same holder record as the file lock. A crashed apply's session ends, and the server
   * releases its lock: no stale-lock timeout. Loaded only when the variable is set.
   */
  private async holdAcrossMachines(url: string, name: string, key: string, locked: string): Promise<void> {
    const { advisoryLockKey, openPostgresLock } = await import('./postgres-lock.js');
    const job = this.options.job;
    const session = await openPostgresLock({
      url,
      locked,
      key: advisoryLockKey(key),
      holder: holderRecord(this.options),
      applicationName: `edgeform apply ${name} on ${hostname()}${job ? ` ${job}` : ''}`,
      warn: this.options.warn,
    });
    try {
      this.held.push(await this.waitWhileLocked(() => session.take()));
    } catch (error) {
      await session.close();
      throw error;
    }
  }

  /**
   * Tries `take` until it is not refused with StackLockedError or the deadline (--lock-timeout)
   * passes, pausing 0.5 s, then twice as long each time (at most 10 s, never past the deadline);
   * says once that it waits, and for whom. Without a timeout the first refusal is thrown.
   */
  private async waitWhileLocked<T>(take: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await take();
      } catch (error) {
        const left = this.deadline - Date.now();
        if (!(error instanceof StackLockedError) || left <= 0) throw error;
        if (attempt === 0) this.options.waiting?.(`waiting up to ${Math.ceil(left / 1000)} s (--lock-timeout) for ${error.locked}, locked by ${error.by}`);
        await sleep(Math.min(left, Math.min(LOCK_RETRY_MAX_MS, LOCK_RETRY_FIRST_MS * 2 ** attempt)), this.options.signal);
      }
    }
  }

  /** Releases every lock held, the last taken first; never throws. */
  async release(): Promise<void> {
    for (const release of this.held.splice(0).reverse()) await release().catch(() => undefined);
  }
}

/** Where the path lock of a stack lives: next to it, named after its real path (the path as given when it cannot be resolved). */
export async function stackLockPath(stackPath: string): Promise<string> {
  const real = await realpath(stackPath).catch(() => resolve(stackPath));
  return `${real}.edgeform.lock`;
}

/**
 * The key of a named stack's lock on one platform: the SHA-256 (hex) of its name and the
 * platform's canonical origin (canonicalOrigin: any spelling of one platform gives one key). The file lock's name holds its first 16 digits, and the lock across
 * machines (EDGEFORM_LOCK_URL) is its first 64 bits, so both lock exactly the same stacks.
 */
export function stackLockKey(name: string, baseUrl: string): string {
  return createHash('sha256')
    .update(JSON.stringify([name, canonicalOrigin(baseUrl)]))
    .digest('hex');
}

/**
 * Where the lock of a named stack on one platform lives: in EDGEFORM_LOCK_DIR, else
 * `<tmpdir>/edgeform-locks` (one per machine, so every checkout finds it), as
 * `<name>-<first 16 digits of its key>.lock`: every spelling of one platform's base URL
 * (canonicalOrigin) finds the same lock.
 */
export function namedStackLockPath(name: string, baseUrl: string, env: NodeJS.ProcessEnv): string {
  const hash = stackLockKey(name, baseUrl).slice(0, 16);
  const readable = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40);
  return join(lockDirectory(env), `${readable}-${hash}.lock`);
}

/** Where the record of a lock's holder lives: beside the lock (the lock itself is a directory proper-lockfile refreshes). */
export function holderPathOf(lockPath: string): string {
  return `${lockPath}.holder`;
}

function lockDirectory(env: NodeJS.ProcessEnv): string {
  const configured = env[LOCK_DIR_ENV];
  return configured ? resolve(configured) : join(tmpdir(), 'edgeform-locks');
}

/** Creates the lock directory; one this run creates is writable by every user, like /tmp (sticky), since applies of one stack may run as several users. */
async function ensureLockDirectory(dir: string): Promise<void> {
  try {
    const created = await mkdir(dir, { recursive: true });
    if (created !== undefined) await chmod(dir, 0o1777).catch(() => undefined);
  } catch (error) {
    throw new EdgeformError('EDGEFORM_STACK_LOCK', `cannot create the lock directory ${dir}: ${(error as Error).message}. Set ${LOCK_DIR_ENV} to a writable directory.`);
  }
}

const holderSchema = z.object({
  host: z.string().min(1).max(255),
  pid: z.number().int().positive(),
  command: z.string().max(10_000),
  since: z.string().max(64),
  job: z.string().max(2_000).optional(),
});

/** This run as a lock's holder: host, pid, command line, now, and its CI job when known. */
function holderRecord(options: StackLockOptions): LockHolder {
  return {
    host: hostname(),
    pid: process.pid,
    command: options.command,
    since: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    ...(options.job ? { job: options.job } : {}),
  };
}

/** What is found at a lock taken by someone else: its holder's record (when readable) and how long since it was refreshed. */
interface Found {
  holder: LockHolder | undefined;
  /** Milliseconds since the lock's last refresh; undefined when the lock is gone. */
  ageMs: number | undefined;
}

/**
 * Takes the lock at `lockPath`, or takes over one its holder left: on this host and its process
 * gone, or not refreshed for STALE_MS. The lock itself is proper-lockfile's (an atomic mkdir,
 * refreshed while held); what is edgeform's is the holder record beside it and when a held lock
 * may be taken over. A takeover happens under a second lock (`<lock>.takeover`), and only a
 * takeover removes a lock someone else made, so two runs never both take over one lock.
 */
async function takeLock(lockPath: string, stack: string, options: StackLockOptions): Promise<() => Promise<void>> {
  const release = await mkdirLock(lockPath, stack, options);
  if (release !== undefined) return recordHolder(lockPath, release, options);

  const found = await inspectSettled(lockPath);
  // Released since (ageMs undefined): try again, through the takeover lock like any other run that found it taken.
  if (found.ageMs !== undefined && takeoverReason(found) === undefined) throw new StackLockedError(stack, lockPath, found.holder);
  let releaseTakeover: () => Promise<void>;
  try {
    releaseTakeover = await lockfile.lock(`${lockPath}.takeover`, {
      lockfilePath: `${lockPath}.takeover`,
      realpath: false,
      stale: STALE_MS,
      retries: 0,
      // Held for a few file operations; its refresh (every 30 s) never comes.
      onCompromised: () => undefined,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new StackLockedError(stack, lockPath, found.holder);
    throw lockFailure(lockPath, error);
  }
  try {
    // Judged again under the takeover lock: the lock may have been released and taken meanwhile.
    const now = await inspect(lockPath);
    const reason = now.ageMs === undefined ? undefined : takeoverReason(now);
    if (now.ageMs !== undefined && reason === undefined) throw new StackLockedError(stack, lockPath, now.holder);
    if (now.ageMs !== undefined) {
      await unlink(holderPathOf(lockPath)).catch(ignoreMissing);
      await rmdir(lockPath).catch(ignoreMissing);
    }
    const taken = await mkdirLock(lockPath, stack, options);
    if (taken === undefined) throw new StackLockedError(stack, lockPath, (await inspect(lockPath)).holder);
    if (reason !== undefined) {
      const who = now.holder ? ` from ${describeLockHolder(now.holder)}` : '';
      options.warn(`took over the apply lock of ${stack}${who}: ${reason}`);
    }
    return await recordHolder(lockPath, taken, options);
  } finally {
    await releaseTakeover().catch(() => undefined);
  }
}

/**
 * Why a lock someone holds may be taken over, or undefined when it may not: its holder is a
 * process of this host that no longer runs (a killed apply), or it was not refreshed for
 * STALE_MS (its holder, on another host, died; proper-lockfile refreshes a held lock every 30 s).
 */
function takeoverReason(found: Found): string | undefined {
  const holder = found.holder;
  if (holder && holder.host === hostname() && !isRunning(holder.pid)) return 'that process is no longer running on this host';
  if (found.ageMs !== undefined && found.ageMs > STALE_MS) return `it was not refreshed for over a minute`;
  return undefined;
}

/** Whether a process of this host runs with `pid` (one of another user counts: signalling it is refused, not unknown). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One attempt at the lock: its release when taken, undefined when someone holds it. proper-lockfile
 * is told a lock never goes stale by itself, so that no one but a takeover (takeLock) removes a
 * lock someone else made.
 */
async function mkdirLock(lockPath: string, stack: string, options: StackLockOptions): Promise<(() => Promise<void>) | undefined> {
  try {
    return await lockfile.lock(lockPath, {
      lockfilePath: lockPath,
      realpath: false,
      stale: Number.POSITIVE_INFINITY,
      update: STALE_MS / 2,
      retries: 0,
      onCompromised: (error) => options.warn(`the apply lock of ${stack} (${lockPath}) could not be kept (${error.message}); another apply could start now`),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
    throw lockFailure(lockPath, error);
  }
}

/** Writes who holds the lock beside it (whole or not at all: written aside, then renamed); the release removes the record first, then the lock. */
async function recordHolder(lockPath: string, release: () => Promise<void>, options: StackLockOptions): Promise<() => Promise<void>> {
  const holder = holderRecord(options);
  const path = holderPathOf(lockPath);
  const aside = `${path}.${process.pid}.tmp`;
  const releaseAll = async () => {
    await unlink(path).catch(ignoreMissing);
    await release();
  };
  try {
    await writeFile(aside, `${JSON.stringify(holder)}\n`, { mode: 0o644 });
    await rename(aside, path);
  } catch (error) {
    await unlink(aside).catch(() => undefined);
    await releaseAll().catch(() => undefined);
    throw lockFailure(lockPath, error);
  }
  return releaseAll;
}

/** How often, and how far apart, a lock just taken is read again for the holder record its taker is about to write. */
const RECORD_READS = 10;
const RECORD_READ_PAUSE_MS = 10;

/**
 * inspect, read again (a bounded number of times) while the lock is younger than a second and
 * its record is missing: its taker writes it right after taking it, and the refusal should name it.
 */
async function inspectSettled(lockPath: string): Promise<Found> {
  let found = await inspect(lockPath);
  for (let read = 1; read < RECORD_READS && found.holder === undefined && found.ageMs !== undefined && found.ageMs < 1000; read++) {
    await new Promise((resolve) => setTimeout(resolve, RECORD_READ_PAUSE_MS));
    found = await inspect(lockPath);
  }
  return found;
}

/**
 * The lock at `lockPath` and its holder's record. A record older than the lock directory (where
 * the file system tells when it was made) is not its holder's: a run whose lock was removed at
 * exit (proper-lockfile does that) can leave its record, and the next lock's taker has not yet
 * written its own, so it counts as missing rather than as a dead holder to take over from.
 */
async function inspect(lockPath: string): Promise<Found> {
  const info = await stat(lockPath).catch(() => undefined);
  const recordPath = holderPathOf(lockPath);
  const recorded = await stat(recordPath).catch(() => undefined);
  const earlier = info !== undefined && recorded !== undefined && info.birthtimeMs > 0 && recorded.mtimeMs < info.birthtimeMs;
  const text = earlier ? undefined : await readFile(recordPath, 'utf8').catch(() => undefined);
  let holder: LockHolder | undefined;
  try {
    const parsed = text === undefined ? undefined : holderSchema.safeParse(JSON.parse(text));
    holder = parsed?.success ? parsed.data : undefined;
  } catch {
    holder = undefined;
  }
  return { holder, ageMs: info === undefined ? undefined : Date.now() - info.mtimeMs };
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}

function lockFailure(lockPath: string, error: unknown): EdgeformError {
  return new EdgeformError(
    'EDGEFORM_STACK_LOCK',
    `cannot take the apply lock ${lockPath}: ${(error as Error).message}. Run where the stack's directory (and ${LOCK_DIR_ENV}, for a named stack) is writable, or pass --lock=false if applies of this stack are serialized another way.`,
  );
}
