import type { Client as PgClient } from 'pg';
import { LOCK_URL_ENV } from '../env.js';
import { EdgeformError, StackLockedError, type LockHolder } from '../errors.js';
import { lazily } from '../lazily.js';

/** Loaded only when EDGEFORM_LOCK_URL is set (an apply across machines): no other run pays for it. */
const pg = lazily<typeof import('pg')>('pg');

/** How a lock held in the database goes away when its holder dies, for a refusal. */
const RELEASE = 'The database releases it as soon as that apply ends, or its process or machine dies (its session closes): there is no stale lock to wait out.';

/** The longest connection attempt to the lock database (a host that drops packets would otherwise hang the apply). */
const CONNECT_TIMEOUT_MS = 20_000;

/** PostgreSQL keeps the first 63 bytes of an application_name. */
const APPLICATION_NAME_BYTES = 63;

/** What a session of the lock database needs to know about the lock and its holder. */
export interface PostgresLockOptions {
  /** EDGEFORM_LOCK_URL: a postgres:// connection URL (its password is a secret of the run). */
  url: string;
  /** What is locked, for messages ("the stack named "shop" on https://…"). */
  locked: string;
  /** The advisory lock's 64-bit key (advisoryLockKey). */
  key: bigint;
  /** Who this apply is, recorded in the session for the apply it refuses. */
  holder: LockHolder;
  /** The session's application_name: what is applying, in a few words (cut to 63 bytes). */
  applicationName: string;
  /** Told when the session holding the lock is lost (another apply could start now). */
  warn: (message: string) => void;
}

/** A session of the lock database that can try the lock (again) and release it. */
export interface PostgresLockSession {
  /** Takes the lock, resolving with its release; throws StackLockedError naming the holder while another session holds it. */
  take(): Promise<() => Promise<void>>;
  /** Closes the session without the lock (nothing taken, or giving up). */
  close(): Promise<void>;
}

/**
 * The advisory lock's key: the first 64 bits of the named file lock's key (the same hash, see
 * stackLockKey), as PostgreSQL's signed bigint.
 */
export function advisoryLockKey(stackKey: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${stackKey.slice(0, 16)}`));
}

/** The lock URL as messages show it: the password (and any query) left out. */
export function describeLockUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    parsed.search = '';
    return parsed.href;
  } catch {
    return `${LOCK_URL_ENV} (not a URL)`;
  }
}

/** An application_name PostgreSQL keeps whole: printable ASCII, at most 63 bytes. */
export function toApplicationName(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, APPLICATION_NAME_BYTES);
}

/**
 * The holder record as a query comment: the session's last query is what pg_stat_activity shows
 * of it, so the apply refused reads the record there. `/` and `*` are JSON escapes inside, so the
 * comment cannot end or nest.
 */
function holderComment(holder: LockHolder): string {
  return `/* edgeform-holder ${JSON.stringify(holder).replace(/\//g, '\\u002f').replace(/\*/g, '\\u002a')} */`;
}

/** The holder record out of a session's last query, or undefined. */
function holderFromQuery(query: string | null): LockHolder | undefined {
  const match = /\/\* edgeform-holder (\{.*?\}) \*\//.exec(query ?? '');
  if (!match) return undefined;
  try {
    const { host, pid, command, since, job } = JSON.parse(match[1] ?? '') as Partial<LockHolder>;
    const ok = typeof host === 'string' && typeof pid === 'number' && typeof command === 'string' && typeof since === 'string';
    return ok ? { host, pid, command, since, ...(typeof job === 'string' ? { job } : {}) } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens a session of the lock database (EDGEFORM_LOCK_URL), named after this apply
 * (application_name), kept alive by TCP keepalives and exempt from the server's idle timeouts,
 * so it lives as long as the apply: the lock it takes is the session's (a session-level
 * advisory lock), and the server releases it when the session ends, however the apply ends.
 * An unreachable database, refused credentials or a URL that is not one is an
 * EDGEFORM_STACK_LOCK error naming the URL without its password; nothing is applied then.
 */
export async function openPostgresLock(options: PostgresLockOptions): Promise<PostgresLockSession> {
  const shown = describeLockUrl(options.url);
  let client: PgClient;
  try {
    client = new (pg().Client)({
      connectionString: options.url,
      application_name: toApplicationName(options.applicationName),
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
  } catch (error) {
    throw unreachable(shown, error);
  }
  let held = false;
  let closed = false;
  client.on('error', (error) => {
    if (held && !closed) options.warn(`the apply lock of ${options.locked} in the lock database ${shown} was lost (${error.message}); another apply could start now`);
  });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw unreachable(shown, error);
  }
  // Settings of this session only; one a server does not know (an older PostgreSQL) is skipped.
  for (const setting of [
    'idle_session_timeout = 0',
    'idle_in_transaction_session_timeout = 0',
    'statement_timeout = 0',
    'tcp_keepalives_idle = 30',
    'tcp_keepalives_interval = 10',
    'tcp_keepalives_count = 6',
  ]) {
    await client.query(`SET ${setting}`).catch(() => undefined);
  }
  const unsigned = BigInt.asUintN(64, options.key);
  const close = async () => {
    closed = true;
    await client.end().catch(() => undefined);
  };
  return {
    async take() {
      let locked: boolean;
      try {
        const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [options.key.toString()]);
        locked = result.rows[0]?.locked === true;
      } catch (error) {
        throw failure(shown, error);
      }
      if (!locked) throw new StackLockedError(options.locked, `PostgreSQL advisory lock ${options.key} at ${shown}`, await findHolder(client, unsigned), RELEASE);
      held = true;
      // What the apply refused reads of this session: its last query, which carries the holder record.
      await client.query(`SELECT 1 AS held ${holderComment(options.holder)}`).catch(() => undefined);
      return async () => {
        held = false;
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [options.key.toString()]).catch(() => undefined);
        await close();
      };
    },
    close,
  };
}

/**
 * Who holds the advisory lock: the holder record its session's last query carries (visible to
 * the same database user), else the session's application_name and where it connects from.
 */
async function findHolder(client: PgClient, key: bigint): Promise<LockHolder | string | undefined> {
  try {
    const { rows } = await client.query<{ application_name: string | null; query: string | null; client_addr: string | null; backend_start: Date | null; pid: number }>(
      `SELECT a.application_name, a.query, a.client_addr::text AS client_addr, a.backend_start, a.pid
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
          AND l.classid::bigint = $1 AND l.objid::bigint = $2
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [(key >> 32n).toString(), (key & 0xffffffffn).toString()],
    );
    const row = rows[0];
    if (!row) return undefined;
    const record = holderFromQuery(row.query);
    if (record) return record;
    const since = row.backend_start ? `, connected since ${row.backend_start.toISOString().replace(/\.\d+Z$/, 'Z')}` : '';
    const from = row.client_addr ? ` from ${row.client_addr}` : '';
    return `the session \`${row.application_name || '(unnamed)'}\` (database pid ${row.pid}${from}${since})`;
  } catch {
    return undefined;
  }
}

function unreachable(shown: string, error: unknown): EdgeformError {
  return new EdgeformError(
    'EDGEFORM_STACK_LOCK',
    `cannot reach the lock database ${shown} (${LOCK_URL_ENV}): ${messageOf(error)}; nothing was applied. Check ${LOCK_URL_ENV} and that the database accepts connections from here.`,
  );
}

function failure(shown: string, error: unknown): EdgeformError {
  return new EdgeformError('EDGEFORM_STACK_LOCK', `the lock database ${shown} (${LOCK_URL_ENV}) failed: ${messageOf(error)}; nothing was applied.`);
}

function messageOf(error: unknown): string {
  const e = error as { message?: string; code?: string };
  const message = e.message || e.code || String(error);
  return message.replace(/\s+/g, ' ').slice(0, 300);
}
