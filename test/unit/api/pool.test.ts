import { describe, expect, it } from 'vitest';
import { Pool } from '../../../src/api/pool.js';

describe("the client's Pool, loaded without undici's index", () => {
  it('has the request method the client calls, before anything loads the index', () => {
    const pool = new Pool('http://127.0.0.1:9');
    try {
      expect(typeof pool.request).toBe('function');
    } finally {
      void pool.close();
    }
  });

  it("is undici's own Pool, with the index's request method", async () => {
    const undici = await import('undici');
    expect(Pool).toBe(undici.Pool);
    expect(Pool.prototype.request).toBe(undici.Pool.prototype.request);
    expect(undici.Dispatcher.prototype.request).toBe(Pool.prototype.request);
  });
});
