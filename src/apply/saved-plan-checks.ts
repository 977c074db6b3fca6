import pLimit from 'p-limit';
import { RunFatalError } from '../errors.js';
import { fingerprint } from '../plan/fingerprint.js';
import { observedFields } from '../plan/planner.js';
import { describeStaleness, type StaleResource } from '../plan/saved-plan.js';
import type { CheckResult, Plan } from '../plan/types.js';
import { resourceProvider, type CheckProvider, type ProviderContext, type ProviderRegistry } from '../providers/provider.js';

/**
 * Re-reads every resource a saved plan changes and returns those whose observed fields no
 * longer have the plan's fingerprint (with how they changed): a stale plan is refused whole.
 */
export async function findStaleResources(plan: Plan, providers: ProviderRegistry['resources'], ctx: ProviderContext, parallelism: number): Promise<StaleResource[]> {
  const limit = pLimit(parallelism);
  const touched = plan.resource_changes.filter((c) => c.action === 'update' || c.action === 'delete');
  const results = await Promise.all(
    touched.map((change) =>
      limit(async () => {
        const provider = resourceProvider(providers, change.type);
        const fresh = observedFields(provider, change.desired, await provider.read(ctx, change.desired));
        return fingerprint(fresh) === change.fingerprint ? null : describeStaleness(change, fresh);
      }),
    ),
  );
  return results.filter((r): r is StaleResource => r !== null);
}

/** A check whose result differs from the one in the saved plan. */
export interface ChangedCheck {
  check: CheckResult;
  was: CheckResult['status'];
}

/**
 * A saved plan with its checks evaluated again: a check a resource depends on is a gate, and
 * whether subtitles are ready is a question for now, not for when the plan was made. Checks
 * only read; one that cannot be evaluated now has status `error` (a RunFatalError, the key
 * refused or the platform unavailable, is thrown instead: the run stops on it).
 */
export async function withFreshChecks(plan: Plan, checks: ProviderRegistry['checks'], ctx: ProviderContext): Promise<{ plan: Plan; changed: ChangedCheck[] }> {
  const changed: ChangedCheck[] = [];
  const fresh = await Promise.all(
    plan.checks.map(async (check) => {
      const provider = checks[check.type] as unknown as CheckProvider;
      const outcome = await provider.evaluate(ctx, check.desired as never).catch((error: unknown) => {
        if (error instanceof RunFatalError) throw error;
        return { status: 'error' as const, message: error instanceof Error ? error.message : String(error) };
      });
      const result: CheckResult = { ...check, status: outcome.status, message: outcome.message };
      if (outcome.status !== check.status) changed.push({ check: result, was: check.status });
      return result;
    }),
  );
  return { plan: { ...plan, checks: fresh }, changed };
}
