/**
 * src/api/pool.ts loads undici's Pool and its request method without undici's index (fetch,
 * WebSocket, the mock agents): checked in a node process of its own on the built module, since
 * the test workers share their module cache and may have loaded the index already.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Pool } from '../../../src/api/pool.js';

const built = fileURLToPath(new URL('../../../dist/src/api/pool.js', import.meta.url));

describe("the client's Pool, loaded without undici's index", () => {
  it('has the request method the client calls, and leaves the index unloaded', () => {
    const script = [
      'import { createRequire } from "node:module";',
      `const { Pool } = await import(${JSON.stringify(built)});`,
      'const pool = new Pool("http://127.0.0.1:9");',
      'const loaded = Object.keys(createRequire(import.meta.url).cache).map((k) => k.replaceAll("\\\\", "/"));',
      'console.log(JSON.stringify({ request: typeof pool.request, index: loaded.some((k) => k.endsWith("/undici/index.js")), fetch: loaded.some((k) => k.includes("/undici/lib/web/fetch/")) }));',
      'await pool.close();',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ request: 'function', index: false, fetch: false });
  });

  it("is undici's own Pool, with the index's request method", async () => {
    const undici = await import('undici');
    expect(Pool).toBe(undici.Pool);
    expect(Pool.prototype.request).toBe(undici.Pool.prototype.request);
  });
});
