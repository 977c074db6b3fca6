/**
 * Reading a stack against the emulator costs linear work in its size, counted, not timed
 * (countScans, as test/unit/cost-scaling.test.ts counts loading and planning): a read of ten
 * times as many blocks may scan at most MAX_GROWTH times as much.
 */
import { describe, expect, it } from 'vitest';
import { providers } from '../../../src/kinds/providers.js';
import { readStack } from '../../../src/kinds/read-stack.js';
import { countScans } from '../../helpers/scan-counter.js';
import { useProviderHarness, type ProviderHarness } from '../../helpers/providers.js';
import { resource, stackOf } from '../../helpers/stack.js';

const SMALL = 100;
const LARGE = 1_000;
/** Linear work grows LARGE / SMALL = 10 times; this leaves room for fixed costs, never for n². */
const MAX_GROWTH = 15;

let harness: ProviderHarness;
useProviderHarness((_e, h) => (harness = h), { fixtures: { dns_zones: [{ name: 'example.com' }] } });

/** What reading `n` record sets to create (the zone holds none of them) scans. */
async function scansOfReading(n: number): Promise<number> {
  const blocks = Array.from({ length: n }, (_, i) =>
    resource('dns_rrset', `r${i}`, {
      zone: 'example.com',
      name: `host${i}`,
      record_type: 'A',
      ttl: 300,
      resource_records: [{ content: [`10.0.0.${i % 250}`] }],
      ensure: 'present',
    }),
  );
  const { result, scanned } = await countScans(() => readStack(harness.ctx, stackOf(blocks), providers, { parallelism: 4 }));
  expect([...result.reads.values()].every((r) => r.ok && !r.observation.exists)).toBe(true);
  return scanned;
}

describe('reading a stack', () => {
  it('gathers the blocks of a kind once a reading, not once for each record set to create (create facts ask for the zones declared)', async () => {
    const small = await scansOfReading(SMALL);
    const large = await scansOfReading(LARGE);
    expect(large / small).toBeLessThan(MAX_GROWTH);
  });
});
