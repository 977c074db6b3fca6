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
