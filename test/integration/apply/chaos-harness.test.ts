import { describe, it } from 'vitest';
import { createRetryQuota } from '../../../src/api/retry.js';
import { expectContractHeld, FULL_CHAOS, FULL_CHAOS_TITLE, SEEDS, useChaosRuns } from '../../helpers/chaos-run.js';

/**
 * The chaos runs of chaos.test.ts with the retry budget and the attempts per request raised
 * through the client's options, so that retries are never what fails: proves the harness (the
 * world, the faults and the oracle), and that the report matches the platform whenever retries
 * suffice. A contract of its own, apart from the runs with the retry quota `edgeform apply`
 * uses, and a file of its own so the two run on both workers.
 */

describe('apply under chaos: the report matches what the platform did', () => {
  const runChaos = useChaosRuns();

  // The same run with the retry budget and the attempts per request raised through the client's
  // options, so that retries are never what fails: proves the harness, and that the report
  // matches the platform whenever retries suffice.
  describe('with retries unconstrained (the harness, at the same fault rates)', () => {
    for (const seed of SEEDS) {
      it(`seed ${seed}: ${FULL_CHAOS_TITLE}`, async () => {
        const unconstrained = { retryQuota: createRetryQuota({ capacity: 1_000_000_000 }), retryPolicy: { maxAttempts: 8 } };
        expectContractHeld(await runChaos(seed, FULL_CHAOS, unconstrained));
      });
    }
  });
});
