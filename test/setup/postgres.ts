import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.js';

/**
 * The test run's one PostgreSQL server (test/helpers/postgres-server.ts), started on first use:
 * vitest's global setup runs once per run, in the main process, and starts only a small
 * loopback HTTP endpoint, whose address the tests get (`inject('postgresStarter')`); the first
 * test that asks it for the server's URL starts the server, every later one (in any worker) gets
 * the same. So a run that needs no database (most targeted runs) pays nothing for it, and a run
 * that does starts it once. The teardown stops it and removes its data.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let server: Promise<PostgresServer> | undefined;
  const starter = createServer((_req, res) => {
    server ??= startPostgresServer();
    server.then(
      (pg) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ url: pg.url, password: pg.password }));
      },
      (error: Error) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: error.stack ?? error.message }));
      },
    );
  });
  await new Promise<void>((resolve) => starter.listen(0, '127.0.0.1', resolve));
  project.provide('postgresStarter', `http://127.0.0.1:${(starter.address() as AddressInfo).port}/`);
  return async () => {
    await new Promise((resolve) => starter.close(resolve));
    const started = await server?.catch(() => undefined);
    await started?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The loopback endpoint that starts (once) and names the test run's PostgreSQL server. */
    postgresStarter: string;
  }
}
