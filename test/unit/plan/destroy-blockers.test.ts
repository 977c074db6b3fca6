import { describe, expect, it } from 'vitest';
import { DESTROY_BLOCKED, refuseBlockedDestroys, type DestroyInput } from '../../../src/plan/destroy-blockers.js';
import type { OwnedRead, ReadResult } from '../../../src/plan/types.js';
import { change, plan } from '../../helpers/plan.js';
import { resource, stackOf } from '../../helpers/stack.js';

// A network blocks its delete by its subnets, as the cloud_network kind declares (by platform id).
// A listener uses its secret, as the cloud_lb_listener kind declares (the platform refuses to delete a secret in use).
const planners: DestroyInput['planners'] = {
  cloud_network: { destroyBlockers: (state) => (state.subnets as string[]).map((id) => ({ id, label: `subnet ${id}` })) },
  cloud_lb_listener: { usedIds: (state) => [state.secret_id as string] },
};
const read = (state: Record<string, unknown>): ReadResult => ({ ok: true, observation: { exists: true, state } });
const NET = 'net-1';
const reads = (subnets: string[]) =>
  new Map<string, ReadResult>([
    ['cloud_network.net', read({ network_id: NET, subnets })],
    ['cloud_subnet.a', read({ subnet_id: 'sub-a' })],
    ['cloud_subnet.b', read({ subnet_id: 'sub-b' })],
  ]);
const stack = stackOf([
  {
    ...resource('cloud_network', 'net', { project_id: 1, region_id: 76, ensure: 'absent' } as never),
    range: { filename: 's.yaml', start: { line: 4, column: 3 }, end: { line: 4, column: 6 } },
  },
]);

describe('refuseBlockedDestroys: a destroy the platform would refuse for what this plan keeps', () => {
  it('refuses a network delete while a subnet this plan keeps is on it, located at the block and naming only that subnet', () => {
    const planned = plan([change({ address: 'cloud_subnet.a', action: 'delete' }), change({ address: 'cloud_network.net', action: 'delete' })]);
    const result = refuseBlockedDestroys(planned, stack, { reads: reads(['sub-a', 'sub-b']), planners });
    expect(result.errored).toBe(true);
    expect(result.applyable).toBe(false);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: DESTROY_BLOCKED,
        address: 'cloud_network.net',
        range: expect.objectContaining({ filename: 's.yaml', start: { line: 4, column: 3 } }),
        summary: 'cloud_network.net cannot be destroyed: the platform refuses to delete it while subnet sub-b uses it, and this plan does not destroy that',
      }),
    ]);
  });

  it('lets it through when the plan destroys (or replaces) every subnet on it', () => {
    const planned = plan([
      change({ address: 'cloud_subnet.a', action: 'delete' }),
      change({ address: 'cloud_subnet.b', action: 'replace' }),
      change({ address: 'cloud_network.net', action: 'replace' }),
    ]);
    expect(refuseBlockedDestroys(planned, stack, { reads: reads(['sub-a', 'sub-b']), planners })).toBe(planned);
  });

  it('says "replaced" for a replace and names every subnet it keeps; an update of a subnet does not free the network', () => {
    const planned = plan([change({ address: 'cloud_subnet.a', action: 'update' }), change({ address: 'cloud_network.net', action: 'replace' })]);
    const [problem] = refuseBlockedDestroys(planned, stack, { reads: reads(['sub-a', 'sub-b']), planners }).diagnostics;
    expect(problem!.summary).toBe(
      'cloud_network.net cannot be replaced (destroyed, then created again): the platform refuses to delete it while subnet sub-a, subnet sub-b use it, and this plan does not destroy them',
    );
  });

  it('reads a pruned resource from the listing that found it (no block, so no range)', () => {
    const owned: OwnedRead[] = [
      {
        type: 'cloud_network',
        ok: true,
        resources: [
          { stack: 'prod', address: 'cloud_network.old', place: '1/76', desired: {} as never, observation: { exists: true, state: { network_id: 'net-9', subnets: ['sub-x'] } } },
        ],
      },
    ];
    const planned = plan([change({ address: 'cloud_network.old', action: 'delete', pruned: true })]);
    const [problem] = refuseBlockedDestroys(planned, stack, { reads: new Map(), owned, planners }).diagnostics;
    expect(problem).toMatchObject({ address: 'cloud_network.old', summary: expect.stringMatching(/^cloud_network\.old cannot be pruned: .*subnet sub-x uses it/) });
    expect(problem!.range).toBeUndefined();
  });

  it('leaves alone a plan without destroys, a kind that declares no blockers, and a network with no subnets', () => {
    const updates = plan([change({ address: 'cloud_network.net', action: 'update' })]);
    expect(refuseBlockedDestroys(updates, stack, { reads: reads(['sub-a']), planners })).toBe(updates);
    const ip = plan([change({ address: 'cloud_floating_ip.ip', action: 'delete' })]);
    expect(refuseBlockedDestroys(ip, stack, { reads: new Map([['cloud_floating_ip.ip', read({ floating_ip_id: 'f' })]]), planners })).toBe(ip);
    const empty = plan([change({ address: 'cloud_network.net', action: 'delete' })]);
    expect(refuseBlockedDestroys(empty, stack, { reads: reads([]), planners })).toBe(empty);
  });

  it("refuses a secret's replace while a listener the plan keeps (even one it updates) uses it, naming the listener's block", () => {
    const stackWithUsers = stackOf([
      resource('cloud_secret', 'tls', { project_id: 1, region_id: 76 } as never),
      resource('cloud_lb_listener', 'https', { project_id: 1, region_id: 76 } as never),
    ]);
    const secretReads = new Map<string, ReadResult>([
      ['cloud_secret.tls', read({ secret_id: 'sec-1' })],
      ['cloud_lb_listener.https', read({ listener_id: 'lis-1', secret_id: 'sec-1' })],
    ]);
    const kept = plan([change({ address: 'cloud_secret.tls', action: 'replace' }), change({ address: 'cloud_lb_listener.https', action: 'update' })]);
    const [problem] = refuseBlockedDestroys(kept, stackWithUsers, { reads: secretReads, planners }).diagnostics;
    expect(problem!.summary).toBe(
      'cloud_secret.tls cannot be replaced (destroyed, then created again): the platform refuses to delete it while cloud_lb_listener.https uses it, and this plan does not destroy that',
    );
    // A listener destroyed in the same plan (before the secret: it reads it) frees it.
    const both = plan([change({ address: 'cloud_secret.tls', action: 'delete' }), change({ address: 'cloud_lb_listener.https', action: 'delete' })]);
    expect(refuseBlockedDestroys(both, stackWithUsers, { reads: secretReads, planners })).toBe(both);
  });
});
