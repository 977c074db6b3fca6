import { describe, expect, it } from 'vitest';
import { abortReason, isAbortError, sleep } from '../../../src/api/sleep.js';

describe('sleep', () => {
  it('resolves after the delay', async () => {
    const start = Date.now();
    await sleep(20);
    expect(Date.now() - start).toBeGreaterThanOrEqual(15);
  });

  it('rejects with the signal reason as soon as it aborts', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const pending = sleep(60_000, controller.signal);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects at once for an already aborted signal', async () => {
    const error = await sleep(60_000, AbortSignal.abort()).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
  });

  it('abortReason falls back to a standard AbortError', () => {
    const signal = { reason: undefined } as unknown as AbortSignal;
    expect(isAbortError(abortReason(signal))).toBe(true);
  });
});
