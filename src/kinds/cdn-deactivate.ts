import { NotFoundError } from '../api/errors.js';
import type { ProviderContext } from './provider.js';

/**
 * Deactivates a CDN resource or rule before its delete (the platform refuses to delete an active
 * one): `PATCH {active: false}` on its path, which sets a value and is harmless to repeat; one
 * already inactive is left alone, one already gone is fine. `path` is null when the change
 * names no id (nothing to deactivate).
 */
export async function deactivateBeforeDelete(ctx: ProviderContext, path: string | null, active: unknown): Promise<void> {
  if (path === null || active === false) return;
  ctx.progress('deactivating before the delete');
  try {
    await ctx.api.request({ method: 'PATCH', path, body: { active: false }, retry: 'idempotent', signal: ctx.signal });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}
