import pg from 'pg';
import { inject } from 'vitest';

/** The test run's PostgreSQL server: its connection URL and password. */
export interface TestPostgres {
  url: string;
  password: string;
}

/**
 * The URL of the test run's one PostgreSQL server, started by the first caller of the run
 * (test/setup/postgres.ts, vitest's global setup), whatever the worker. A server that could not
 * start is this test's failure, with the reason: the lock tests never skip.
 */
export async function testPostgres(): Promise<TestPostgres> {
  const res = await fetch(inject('postgresStarter'));
  const body = (await res.json()) as { url?: string; password?: string; error?: string };
  if (!res.ok || !body.url || !body.password) throw new Error(`the test PostgreSQL server did not start: ${body.error ?? res.status}`);
  return { url: body.url, password: body.password };
}

/** The sessions of the test database named after an apply of the stack `name` (`edgeform apply NAME on HOST …`): their application_name. */
export async function applySessions(db: TestPostgres, name: string): Promise<string[]> {
  return (await applySessionQueries(db, name)).map((s) => s.application_name);
}

/** The same sessions with the last query each ran (pg_stat_activity.query): what a session has done so far. */
export async function applySessionQueries(db: TestPostgres, name: string): Promise<Array<{ application_name: string; query: string }>> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ application_name: string; query: string | null }>('SELECT application_name, query FROM pg_stat_activity WHERE application_name LIKE $1', [
      `edgeform apply ${name} %`,
    ]);
    return rows.map((r) => ({ application_name: r.application_name, query: r.query ?? '' }));
  } finally {
    await client.end();
  }
}
