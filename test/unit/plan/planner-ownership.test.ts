import { describe, expect, it } from 'vitest';
import type { ProviderPlan, ReadResult } from '../../../src/kinds/provider.js';
import { buildPlan, OWNERSHIP_UNPROVEN, type ResourcePlanners } from '../../../src/plan/planner.js';
import { resource, stackOf } from '../../helpers/stack.js';

/**
 * The planner's judgement of owner marks (EDGEFORM_OWNER_KEY) and of a container's pruning owner
 * (Ownership.scope "prune", a DNS zone), with a stand-in kind: its state is
 * `{ floating_ip_id, owner: 'STACK/ADDRESS#MARK' | null, size }`, MARK one of valid, previous, missing, invalid;
 * its claim rewrites the owner.
 */
function planners(scope?: 'prune', noun?: string): ResourcePlanners {
  const diff = (desired: Record<string, unknown>, state: Record<string, unknown>): ProviderPlan => {
    const before = { floating_ip_id: state.floating_ip_id, size: state.size };
    const changed = desired.size !== undefined && desired.size !== state.size;
    return {
      action: changed ? 'update' : 'no-op',
      before,
      after: { ...before, size: desired.size ?? state.size },
      changes: changed ? [{ path: ['size'], op: 'update', before: state.size, after: desired.size }] : [],
      ...(changed ? { payload: { size: desired.size } } : {}),
      errors: [],
      warnings: [],
      notes: [],
    };
  };
  const owner = (state: Record<string, unknown>) => {
    if (typeof state.owner !== 'string') return null;
    const [where, mark] = state.owner.split('#');
    const [stack, address] = where!.split('/');
    return { stack: stack!, address: address ?? '', mark: (mark ?? 'valid') as 'valid' };
  };
  const kind = {
    summarize: (state: Record<string, unknown>) => ({ floating_ip_id: state.floating_ip_id, size: state.size }),
    plan: diff,
    create: {
      plan: (desired: Record<string, unknown>) => ({ ...diff(desired, { floating_ip_id: '(known after apply)' }), action: 'create' as const }),
      identity: () => null,
    },
    ownership: {
      owner,
      place: (desired: Record<string, unknown>) => String(desired.place),
      claim: (desired: Record<string, unknown>, state: Record<string, unknown>, ref: { stack: string | null; address: string }) => ({
        ...diff(desired, state),
        action: 'update' as const,
        changes: [{ path: ['owner'], op: 'update' as const, before: state.owner, after: `${ref.stack}/${ref.address}` }],
        payload: { owner: `${ref.stack}/${ref.address}` },
      }),
      ...(scope ? { scope } : {}),
      ...(noun ? { noun } : {}),
    },
  };
  return { cloud_floating_ip: kind } as unknown as ResourcePlanners;
}

const block = (attributes: Record<string, unknown> = {}) => resource('cloud_floating_ip', 'ip', { place: 'p1', ensure: 'present', floating_ip_id: 'x1', ...attributes } as never);
const found = (owner: string | null): ReadResult => ({ ok: true, observation: { exists: true, state: { floating_ip_id: 'x1', owner, size: 1 } } });

function plan(read: ReadResult, options: { scope?: 'prune'; noun?: string; prune?: boolean; attributes?: Record<string, unknown> } = {}) {
  return buildPlan({
    stack: { ...stackOf([block(options.attributes)]), name: 'prod', prune: options.prune ?? false },
    reads: new Map([['cloud_floating_ip.ip', read]]),
    checks: new Map(),
    planners: planners(options.scope, options.noun),
    baseUrl: 'http://127.0.0.1:1',
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0',
  });
}
const outcome = (p: ReturnType<typeof plan>) => ({
  action: p.resource_changes[0]?.action,
  claim: (p.resource_changes[0] as { claim?: boolean } | undefined)?.claim,
  diagnostics: p.diagnostics.map((d) => [d.severity, d.code, d.summary, d.detail]),
});

describe('owner marks', () => {
  it('refuse a resource naming this block with a mark that does not verify: neither adopted nor re-marked', () => {
    expect(outcome(plan(found('prod/cloud_floating_ip.ip#invalid')))).toEqual({
      action: undefined,
      claim: undefined,
      diagnostics: [
        [
          'error',
          OWNERSHIP_UNPROVEN,
          'cloud_floating_ip.ip: cloud_floating_ip "x1" carries this stack\'s ownership tags, but its owner mark does not verify with EDGEFORM_OWNER_KEY: it was forged, copied from another resource, or made with another key; edgeform neither takes nor re-marks it',
          'If it was marked with the key before a rotation, set EDGEFORM_OWNER_KEY_PREVIOUS to that key (the mark is then re-made with the current one). Otherwise check who wrote its ownership tags, and remove them on the platform to have this stack create its own.',
        ],
      ],
    });
  });

  it('re-make a mark made with the previous key or missing, and leave a valid one or another address of this stack alone', () => {
    for (const mark of ['previous', 'missing']) expect(outcome(plan(found(`prod/cloud_floating_ip.ip#${mark}`)))).toEqual({ action: 'update', claim: true, diagnostics: [] });
    expect(outcome(plan(found('prod/cloud_floating_ip.ip#valid')))).toEqual({ action: 'no-op', claim: undefined, diagnostics: [] });
    expect(outcome(plan(found('prod/cloud_floating_ip.other#invalid')))).toEqual({ action: 'no-op', claim: undefined, diagnostics: [] });
    expect(outcome(plan(found('prod/cloud_floating_ip.other#previous')))).toEqual({ action: 'no-op', claim: undefined, diagnostics: [] });
  });

  it("refuse adopting by id what another stack's tags name, naming the takeover", () => {
    expect(outcome(plan(found('staging/cloud_floating_ip.web#valid'))).diagnostics).toEqual([
      [
        'error',
        'plan-error',
        'cloud_floating_ip.ip: cloud_floating_ip "x1" carries the ownership tags of stack "staging" (cloud_floating_ip.web); adopting it by id would take it from that stack',
        'To take it over, add "moved_from: staging/cloud_floating_ip.web" to this block (and remove its block from stack "staging"); otherwise adopt another cloud_floating_ip.',
      ],
    ]);
  });
});

describe("the run's owner seal", () => {
  it('is what the kind judges a mark with: a mark made with it is kept, the same resource judged without it is re-marked', () => {
    // A kind whose mark verifies only with the seal it was made with.
    const sealed = planners();
    const kind = sealed.cloud_floating_ip as unknown as { ownership: { owner: (state: Record<string, unknown>, desired: unknown, seal?: unknown) => unknown } };
    kind.ownership.owner = (state, _desired, seal) => ({ stack: 'prod', address: 'cloud_floating_ip.ip', mark: seal === state.sealedWith ? 'valid' : 'previous' });
    const run = (seal?: object) =>
      buildPlan({
        stack: { ...stackOf([block()]), name: 'prod', prune: false },
        reads: new Map([['cloud_floating_ip.ip', { ok: true, observation: { exists: true, state: { floating_ip_id: 'x1', size: 1, sealedWith: key } } }]]),
        checks: new Map(),
        planners: sealed,
        baseUrl: 'http://127.0.0.1:1',
        createdAt: '2026-01-01T00:00:00.000Z',
        edgeformVersion: '0.0.0',
        ...(seal ? { seal: seal as never } : {}),
      }).resource_changes[0]!.action;
    const key = { key: 'k' };
    expect([run(key), run()]).toEqual(['no-op', 'update']);
  });
});

describe("a container's pruning owner", () => {
  const prune = { scope: 'prune' as const, noun: 'owner record', prune: true };

  it('is claimed when it has none or names this stack, and refused, named, when another stack prunes it', () => {
    expect(outcome(plan(found(null), prune))).toMatchObject({ action: 'update', claim: true, diagnostics: [] });
    expect(outcome(plan(found('prod/#valid'), prune))).toMatchObject({ action: 'update', claim: true, diagnostics: [] });
    expect(outcome(plan(found('other/#valid'), prune)).diagnostics).toEqual([
      [
        'error',
        'plan-error',
        'cloud_floating_ip.ip: cloud_floating_ip "x1" is pruned by stack "other" (no address), as its owner record says; with prune: true this stack would prune it too, and each stack would destroy the other\'s record sets',
        'To take it over, add "moved_from: other/cloud_floating_ip.NAME" to this block (and remove prune: true, or the block, from stack "other"); to only read it, remove prune: true from this stack.',
      ],
    ]);
  });

  it('is refused, for any address of this stack, when its mark does not verify, to be claimed afresh', () => {
    const [error] = outcome(plan(found('prod/#invalid'), prune)).diagnostics;
    expect(error![1]).toBe(OWNERSHIP_UNPROVEN);
    expect(error![2]).toContain("carries this stack's owner record, but its owner mark does not verify");
    expect(error![3]).toContain('remove them on the platform to have this stack claim it afresh.');
  });

  it("is written by a pruning stack's create (a claim), and by no other create", () => {
    const missing: ReadResult = { ok: true, observation: { exists: false } };
    const create = { attributes: { floating_ip_id: undefined } };
    expect(outcome(plan(missing, { ...prune, ...create }))).toEqual({ action: 'create', claim: true, diagnostics: [] });
    expect(outcome(plan(missing, { ...prune, ...create, prune: false }))).toEqual({ action: 'create', claim: undefined, diagnostics: [] });
    expect(outcome(plan(missing, { ...create, prune: true }))).toEqual({ action: 'create', claim: undefined, diagnostics: [] });
  });

  it('is neither checked nor written by a stack without prune: true', () => {
    expect(outcome(plan(found('other/#valid'), { ...prune, prune: false }))).toEqual({ action: 'no-op', claim: undefined, diagnostics: [] });
  });

  it('warns when ensure: absent deletes what another stack prunes, and says nothing when it is this stack or nothing is there', () => {
    const absent = { ...prune, attributes: { ensure: 'absent' } };
    expect(outcome(plan(found('other/#valid'), absent))).toEqual({
      action: 'delete',
      claim: undefined,
      diagnostics: [
        [
          'warning',
          'owned-elsewhere',
          'cloud_floating_ip.ip: ensure: absent deletes cloud_floating_ip "x1" with all it holds, which stack "other" prunes (its owner record says so)',
          undefined,
        ],
      ],
    });
    expect(outcome(plan(found('prod/#valid'), absent)).diagnostics).toEqual([]);
    expect(outcome(plan(found(null), absent)).diagnostics).toEqual([]);
    expect(outcome(plan({ ok: true, observation: { exists: false } }, absent))).toEqual({ action: 'no-op', claim: undefined, diagnostics: [] });
    expect(outcome(plan(found('other/#valid'), { ...absent, noun: undefined })).diagnostics[0]![2]).toContain('(its ownership tags says so)');
  });
});
