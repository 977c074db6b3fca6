import { describe, expect, it } from 'vitest';
import { buildDriftReport } from '../../../src/plan/drift.js';
import { OWNED_PRUNE_NOTE } from '../../../src/plan/planner.js';
import { change, plan } from '../../helpers/plan.js';

describe('drift of a resource apply would prune', () => {
  it('says it carries the ownership tags when that is why', () => {
    const pruned = change({ address: 'cloud_floating_ip.old', action: 'delete', pruned: true, notes: [OWNED_PRUNE_NOTE] });
    expect(buildDriftReport(plan([pruned])).drifted[0]).toMatchObject({
      kind: 'unmanaged',
      message: "carries this stack's ownership tags, but no block declares it (apply would prune it)",
    });
  });

  it("gives the kind's own reason when it has one (a record set of a zone the stack declares)", () => {
    const reason = 'no block declares it, and it is in zone shop.example, which a dns_zone block of this stack declares (prune: true)';
    const pruned = change({ address: 'dns_rrset.shop.example/old.shop.example/TXT', type: 'dns_rrset', action: 'delete', pruned: true, notes: [reason] });
    const [entry] = buildDriftReport(plan([pruned])).drifted;
    expect(entry).toMatchObject({ kind: 'unmanaged', message: `${reason}; apply would prune it` });
    expect(entry!.message).not.toContain('ownership tags');
  });
});
