import { describe, expect, it } from 'vitest';
import type { SourceRange } from '../../../src/config/diagnostics.js';
import type { MovedFrom } from '../../../src/config/types.js';
import type { OwnedRead, OwnedResource, ProviderPlan, ReadResult } from '../../../src/kinds/provider.js';
import { buildPlan, type ResourcePlanners } from '../../../src/plan/planner.js';
import { renderPlanText } from '../../../src/render/plan-text.js';
import { resource, stackOf } from '../../helpers/stack.js';

/**
 * A stand-in kind with ownership tags (the planner's move, foreign-owner and rename-warning
 * logic is generic): its state is `{ floating_ip_id, owner: 'STACK/ADDRESS' | null, size }`, its diff
 * updates `size`, and its claim also rewrites `owner`.
 */
const planners = (() => {
  const diff = (desired: Record<string, unknown>, state: Record<string, unknown>): ProviderPlan => {
    const before = { floating_ip_id: state.floating_ip_id, size: state.size };
    const changed = desired.size !== undefined && desired.size !== state.size;
    // `region` and `zone` cannot change in place (a replace); `replace: true` replaces without saying which field forces it.
    const forced = (['region', 'zone'] as const).filter((f) => desired[f] !== undefined && desired[f] !== state[f]);
    return {
      action: forced.length > 0 || desired.replace === true ? 'replace' : changed ? 'update' : 'no-op',
      before,
      after: { ...before, size: desired.size ?? state.size },
      changes: [
        ...(changed ? [{ path: ['size'], op: 'update' as const, before: state.size, after: desired.size }] : []),
        ...forced.map((f) => ({ path: [f], op: 'update' as const, before: state[f], after: desired[f], forces_replacement: true })),
      ],
      ...(changed ? { payload: { size: desired.size } } : {}),
      // A negative size is the kind's own error.
      errors: typeof desired.size === 'number' && desired.size < 0 ? [{ summary: 'size must be positive', field: 'size', detail: 'Give a size of 1 or more.' }] : [],
      warnings: [],
      notes: [],
    };
  };
  const owner = (state: Record<string, unknown>) => {
    if (typeof state.owner !== 'string') return null;
    const [stack, address] = state.owner.split('/');
    return { stack: stack!, address: address! };
  };
  const kind = {
    summarize: (state: Record<string, unknown>) => ({ floating_ip_id: state.floating_ip_id, size: state.size }),
    plan: diff,
    create: {
      plan: (desired: Record<string, unknown>) => ({ ...diff(desired, { floating_ip_id: '(known after apply)' }), action: 'create' as const }),
      identity: (desired: Record<string, unknown>, ref: { stack: string | null }) => (desired.floating_ip_id === undefined ? `ownership tags of stack "${ref.stack}"` : null),
    },
    ownership: {
      owner,
      place: (desired: Record<string, unknown>) => String(desired.place),
      claim: (desired: Record<string, unknown>, state: Record<string, unknown>, ref: { stack: string | null; address: string }) => {
        const planned = diff(desired, state);
        const current = owner(state);
        if (current?.stack === ref.stack && current.address === ref.address) return planned;
        return { ...planned, action: planned.action === 'no-op' ? ('update' as const) : planned.action, payload: { ...planned.payload, owner: `${ref.stack}/${ref.address}` } };
      },
    },
  };
  return { cloud_floating_ip: kind } as unknown as ResourcePlanners;
})();

const range: SourceRange = { filename: 'stack.yaml', start: { line: 7, column: 17 }, end: { line: 7, column: 40 } };
const block = (name: string, attributes: Record<string, unknown>, movedFrom?: Omit<MovedFrom, 'range'>) => ({
  ...resource('cloud_floating_ip', name, { place: 'p1', ensure: 'present', ...attributes } as never),
  ...(movedFrom ? { movedFrom: { ...movedFrom, range } } : {}),
});
const tagged = (id: string, stack: string, address: string, place = 'p1', size = 1): OwnedResource => ({
  stack,
  address,
  place,
  desired: { floating_ip_id: id, place, ensure: 'absent' } as never,
  observation: { exists: true, state: { floating_ip_id: id, owner: `${stack}/${address}`, size } },
});
const missing: ReadResult = { ok: true, observation: { exists: false } };
const found = (state: Record<string, unknown>): ReadResult => ({ ok: true, observation: { exists: true, state } });

function plan(
  blocks: ReturnType<typeof block>[],
  reads: Record<string, ReadResult>,
  owned: OwnedResource[] | OwnedRead | undefined,
  options: { prune?: boolean; renamedFrom?: string } = {},
) {
  const listing: OwnedRead[] | undefined = owned && (Array.isArray(owned) ? [{ type: 'cloud_floating_ip', ok: true, resources: owned }] : [owned]);
  return buildPlan({
    stack: { ...stackOf(blocks), name: 'prod', prune: options.prune ?? false, ...(options.renamedFrom ? { renamedFrom: options.renamedFrom } : {}) },
    reads: new Map(Object.entries(reads)),
    checks: new Map(),
    ...(listing ? { owned: listing } : {}),
    planners,
    baseUrl: 'http://127.0.0.1:1',
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0',
  });
}

describe('a move (moved_from, renamed_from)', () => {
  it('plans an update of the old resource that rewrites its ownership tags, with its id in desired, nothing created or destroyed', () => {
    const web = block('web', { size: 2 }, { stack: 'prod', address: 'cloud_floating_ip.old' });
    const result = plan([web], { 'cloud_floating_ip.web': missing }, [tagged('A', 'prod', 'cloud_floating_ip.old')], { prune: true });
    expect(result.errored).toBe(false);
    expect(result.resource_changes).toHaveLength(1);
    expect(result.resource_changes[0]).toMatchObject({
      address: 'cloud_floating_ip.web',
      action: 'update',
      moved_from: 'prod/cloud_floating_ip.old',
      desired: { floating_ip_id: 'A', size: 2 },
      payload: { size: 2, owner: 'prod/cloud_floating_ip.web' },
      before: { floating_ip_id: 'A', size: 1 },
    });
    expect(result.summary).toEqual({ add: 0, change: 1, destroy: 0, read: 0 });
    expect(renderPlanText(result)).toContain('~ cloud_floating_ip.web (moved from prod/cloud_floating_ip.old)');
  });

  it('is a no-op once done (the block finds its own resource, nothing carries the old tags)', () => {
    const web = block('web', { size: 1 }, { stack: 'prod', address: 'cloud_floating_ip.old' });
    const result = plan([web], { 'cloud_floating_ip.web': found({ floating_ip_id: 'A', owner: 'prod/cloud_floating_ip.web', size: 1 }) }, [
      tagged('A', 'prod', 'cloud_floating_ip.web'),
    ]);
    expect(result.errored).toBe(false);
    expect(result.resource_changes.map((c) => c.action)).toEqual(['no-op']);
    expect(result.diagnostics).toEqual([]);
  });

  it('fails naming both when the old and the new address both exist', () => {
    const web = block('web', {}, { stack: 'prod', address: 'cloud_floating_ip.old' });
    const result = plan([web], { 'cloud_floating_ip.web': found({ floating_ip_id: 'B', owner: 'prod/cloud_floating_ip.web', size: 1 }) }, [
      tagged('A', 'prod', 'cloud_floating_ip.old'),
      tagged('B', 'prod', 'cloud_floating_ip.web'),
    ]);
    expect(result.errored).toBe(true);
    expect(result.diagnostics[0]).toMatchObject({ severity: 'error', range, summary: expect.stringContaining('both the old and the new address exist') });
    expect(result.diagnostics[0]!.summary).toContain('prod/cloud_floating_ip.old');
    expect(result.diagnostics[0]!.summary).toContain('prod/cloud_floating_ip.web');
    expect(result.diagnostics[0]!.detail).toBe('A move re-tags one resource: destroy or re-tag one of them first, or remove moved_from.');
  });

  it("only in the block's own place; an old address nothing carries is a warning, and the block is created", () => {
    const web = block('web', {}, { stack: 'prod', address: 'cloud_floating_ip.old' });
    const result = plan([web], { 'cloud_floating_ip.web': missing }, [tagged('A', 'prod', 'cloud_floating_ip.old', 'p2')]);
    expect(result.resource_changes.map((c) => c.action)).toEqual(['create']);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', summary: expect.stringContaining('no cloud_floating_ip in p1 carries those ownership tags') }),
    ]);
    // A warning does not make the plan errored.
    expect(result.errored).toBe(false);
  });

  it('prune never destroys what a block moves from', () => {
    const web = block('web', {}, { stack: 'old', address: 'cloud_floating_ip.web' });
    const result = plan([web], { 'cloud_floating_ip.web': missing }, [tagged('A', 'old', 'cloud_floating_ip.web'), tagged('Z', 'prod', 'cloud_floating_ip.gone')], {
      prune: true,
      renamedFrom: 'old',
    });
    expect(result.resource_changes.map((c) => [c.address, c.action, c.pruned ?? false, c.moved_from])).toEqual([
      ['cloud_floating_ip.gone', 'delete', true, undefined],
      ['cloud_floating_ip.web', 'update', false, 'old/cloud_floating_ip.web'],
    ]);
  });
});

describe('a move that cannot be carried out as written', () => {
  const fieldRange = (line: number): SourceRange => ({ filename: 'stack.yaml', start: { line, column: 5 }, end: { line, column: 9 } });
  // The block's fields where the stack file writes them, so an error about one points at it.
  const moving = (attributes: Record<string, unknown>) => ({
    ...block('web', attributes, { stack: 'prod', address: 'cloud_floating_ip.old' }),
    fieldSources: { size: { range: fieldRange(3) }, region: { range: fieldRange(4) }, zone: { range: fieldRange(5) } },
  });
  const old = (state: Record<string, unknown> = {}): OwnedResource => {
    const resource = tagged('A', 'prod', 'cloud_floating_ip.old');
    return { ...resource, observation: { ...resource.observation, state: { ...resource.observation.state, region: 'r1', zone: 'z1', ...state } } };
  };
  const outcome = (result: ReturnType<typeof plan>) => ({
    changes: result.resource_changes.map((c) => [c.address, c.action]),
    diagnostics: result.diagnostics.map((d) => ({ severity: d.severity, summary: d.summary, detail: d.detail, range: d.range })),
  });

  it("is the kind's own error where the claim of the old resource fails, at the field, and nothing is planned for the block", () => {
    const result = plan([moving({ size: -1 })], { 'cloud_floating_ip.web': missing }, [old()]);
    expect(result.errored).toBe(true);
    expect(outcome(result)).toEqual({
      changes: [],
      diagnostics: [{ severity: 'error', summary: 'cloud_floating_ip.web: size must be positive', detail: 'Give a size of 1 or more.', range: fieldRange(3) }],
    });
  });

  it('is refused where it would replace the resource, naming the field that cannot change in place, at that field: move first, then change', () => {
    // size changes in place too: only region is named.
    expect(outcome(plan([moving({ region: 'r2', size: 5 })], { 'cloud_floating_ip.web': missing }, [old()]))).toEqual({
      changes: [],
      diagnostics: [
        {
          severity: 'error',
          summary: 'cloud_floating_ip.web: moved from prod/cloud_floating_ip.old, but region cannot change in place: move it first, then change it',
          detail: 'Apply the move alone (with region as the resource has it), then change it in another apply.',
          range: fieldRange(4),
        },
      ],
    });
  });

  it('names every field that cannot change in place, at the first, and a replace that names none in general words', () => {
    expect(outcome(plan([moving({ region: 'r2', zone: 'z2' })], { 'cloud_floating_ip.web': missing }, [old()])).diagnostics).toEqual([
      {
        severity: 'error',
        summary: 'cloud_floating_ip.web: moved from prod/cloud_floating_ip.old, but region and zone cannot change in place: move it first, then change it',
        detail: 'Apply the move alone (with region and zone as the resource has them), then change them in another apply.',
        range: fieldRange(4),
      },
    ]);
    expect(outcome(plan([moving({ replace: true })], { 'cloud_floating_ip.web': missing }, [old()])).diagnostics).toEqual([
      {
        severity: 'error',
        summary: 'cloud_floating_ip.web: moved from prod/cloud_floating_ip.old, but a field that cannot change in place differs: move it first, then change it',
        detail: 'Apply the move alone (with those fields as the resource has them), then change them in another apply.',
        range: moving({}).range,
      },
    ]);
  });

  it("carries the old resource's lock, and no identity (the change acts on the resource by its id)", () => {
    const locked = old();
    const result = plan([moving({})], { 'cloud_floating_ip.web': missing }, [{ ...locked, observation: { ...locked.observation, lockTaskId: 'task-7' } }]);
    const [change] = result.resource_changes;
    expect(change).toMatchObject({ action: 'update', moved_from: 'prod/cloud_floating_ip.old', lock_task_id: 'task-7' });
    expect(change!.warnings).toEqual(['locked by running platform task task-7; apply waits for it to finish before changing anything']);
    expect(change!.identity).toBeUndefined();
  });

  it('is an error at moved_from where listing what carries the old tags failed, and where two resources carry them', () => {
    const failed = plan([moving({})], { 'cloud_floating_ip.web': missing }, { type: 'cloud_floating_ip', ok: false, error: { summary: 'HTTP 503' } });
    expect(outcome(failed)).toEqual({
      changes: [],
      diagnostics: [
        {
          severity: 'error',
          summary: 'cloud_floating_ip.web: moved_from prod/cloud_floating_ip.old: listing the cloud_floating_ip resources failed: HTTP 503',
          detail: undefined,
          range,
        },
      ],
    });
    expect(failed.diagnostics[0]!.code).toBe('plan-error');
    const twice = plan([moving({})], { 'cloud_floating_ip.web': missing }, [old(), { ...tagged('B', 'prod', 'cloud_floating_ip.old') }]);
    expect(outcome(twice)).toEqual({
      changes: [],
      diagnostics: [
        {
          severity: 'error',
          summary: 'cloud_floating_ip.web: moved_from prod/cloud_floating_ip.old: 2 cloud_floating_ip resources carry those ownership tags ("A", "B")',
          detail: undefined,
          range,
        },
      ],
    });
  });

  it('is a plain create, without a warning, where no listing was made (the kind lists nothing for this stack)', () => {
    expect(outcome(plan([moving({})], { 'cloud_floating_ip.web': missing }, undefined))).toEqual({ changes: [['cloud_floating_ip.web', 'create']], diagnostics: [] });
  });
});

describe('foreign ownership', () => {
  it("a block adopting by id what another stack's tags name is an error naming the stack and the moved_from that takes it over", () => {
    const mine = block('mine', { floating_ip_id: 'A' });
    const result = plan([mine], { 'cloud_floating_ip.mine': found({ floating_ip_id: 'A', owner: 'other/cloud_floating_ip.shared', size: 1 }) }, undefined);
    expect(result.errored).toBe(true);
    expect(result.diagnostics[0]!.summary).toContain('carries the ownership tags of stack "other"');
    expect(result.diagnostics[0]!.detail).toContain('moved_from: other/cloud_floating_ip.shared');
  });

  it("moved_from takes it over; this stack's own tags and no tags are adopted as before", () => {
    const taken = block('mine', { floating_ip_id: 'A' }, { stack: 'other', address: 'cloud_floating_ip.shared' });
    const result = plan([taken], { 'cloud_floating_ip.mine': found({ floating_ip_id: 'A', owner: 'other/cloud_floating_ip.shared', size: 1 }) }, []);
    expect(result.resource_changes[0]).toMatchObject({ action: 'update', moved_from: 'other/cloud_floating_ip.shared', payload: { owner: 'prod/cloud_floating_ip.mine' } });
    for (const owner of ['prod/cloud_floating_ip.mine', null]) {
      const plain = plan([block('mine', { floating_ip_id: 'A' })], { 'cloud_floating_ip.mine': found({ floating_ip_id: 'A', owner, size: 1 }) }, undefined);
      expect(plain.errored, String(owner)).toBe(false);
      expect(plain.resource_changes.map((c) => c.action)).toEqual(['no-op']);
    }
  });
});

describe('foreign ownership, the edges', () => {
  it('names a foreign owner without an address as such, and the takeover with the block type', () => {
    const result = plan([block('mine', { floating_ip_id: 'A' })], { 'cloud_floating_ip.mine': found({ floating_ip_id: 'A', owner: 'other/', size: 1 }) }, undefined);
    expect(result.diagnostics.map((d) => [d.severity, d.summary, d.detail])).toEqual([
      [
        'error',
        'cloud_floating_ip.mine: cloud_floating_ip "A" carries the ownership tags of stack "other" (no address); adopting it by id would take it from that stack',
        'To take it over, add "moved_from: other/cloud_floating_ip.NAME" to this block (and remove its block from stack "other"); otherwise adopt another cloud_floating_ip.',
      ],
    ]);
  });

  it('is not taken over by a moved_from naming another address of that stack', () => {
    const taken = block('mine', { floating_ip_id: 'A' }, { stack: 'other', address: 'cloud_floating_ip.elsewhere' });
    const result = plan([taken], { 'cloud_floating_ip.mine': found({ floating_ip_id: 'A', owner: 'other/cloud_floating_ip.shared', size: 1 }) }, []);
    expect(result.resource_changes).toEqual([]);
    expect(result.diagnostics.map((d) => d.summary)).toEqual([
      'cloud_floating_ip.mine: cloud_floating_ip "A" carries the ownership tags of stack "other" (cloud_floating_ip.shared); adopting it by id would take it from that stack',
    ]);
  });

  it("adopts by id what this stack's tags name under another address of its own (no takeover needed)", () => {
    const result = plan(
      [block('mine', { floating_ip_id: 'A' })],
      { 'cloud_floating_ip.mine': found({ floating_ip_id: 'A', owner: 'prod/cloud_floating_ip.other', size: 1 }) },
      undefined,
    );
    expect([result.errored, result.resource_changes.map((c) => c.action), result.diagnostics]).toEqual([false, ['no-op'], []]);
  });
});

describe('rename warnings of a block that would be created', () => {
  it('say prune destroys the undeclared address, and write the moved_from with the stack where the stack was renamed', () => {
    const result = plan([block('web', {})], { 'cloud_floating_ip.web': missing }, [tagged('B', 'prod', 'cloud_floating_ip.legacy')], { prune: true, renamedFrom: 'old' });
    const warning = result.diagnostics.find((d) => d.severity === 'warning')!;
    expect([warning.summary, warning.detail]).toEqual([
      'cloud_floating_ip.web would be created, but stack "prod" holds cloud_floating_ip.legacy (cloud_floating_ip "B"), which no block declares (prune: true destroys it)',
      'If this block was renamed from cloud_floating_ip.legacy, add "moved_from: prod/cloud_floating_ip.legacy" to it: the resource is then re-tagged, not created anew and the old one left or pruned.',
    ]);
  });

  it('say nothing of an address of another kind, or of one another block moves from', () => {
    const db = block('db', { floating_ip_id: 'D' }, { stack: 'prod', address: 'cloud_floating_ip.legacy' });
    const result = plan(
      [block('web', {}), db],
      { 'cloud_floating_ip.web': missing, 'cloud_floating_ip.db': found({ floating_ip_id: 'D', owner: 'prod/cloud_floating_ip.legacy', size: 1 }) },
      [tagged('B', 'prod', 'cloud_instance.legacy'), tagged('D', 'prod', 'cloud_floating_ip.legacy')],
    );
    expect(result.diagnostics).toEqual([]);
  });

  it('name an address another stack holds twice in the place once', () => {
    const result = plan([block('web', {})], { 'cloud_floating_ip.web': missing }, [tagged('A', 'old', 'cloud_floating_ip.web'), tagged('B', 'old', 'cloud_floating_ip.web')]);
    expect(result.diagnostics.map((d) => [d.code, d.summary, d.detail])).toEqual([
      [
        'rename-suspected',
        'cloud_floating_ip.web would be created, and stack "old" holds a resource at the same address: was this stack renamed from "old"?',
        'If it was, add "renamed_from: old" at the top of this stack: that resource is then re-tagged, not created anew. Unrelated stacks may use the same addresses; then nothing needs to change.',
      ],
    ]);
  });

  it('names both: the same address under another stack, and an undeclared address of this stack in the same place', () => {
    const result = plan(
      [block('web', {}), block('kept', { floating_ip_id: 'K' })],
      { 'cloud_floating_ip.web': missing, 'cloud_floating_ip.kept': found({ floating_ip_id: 'K', owner: null, size: 1 }) },
      [
        tagged('A', 'old', 'cloud_floating_ip.web'),
        tagged('B', 'prod', 'cloud_floating_ip.legacy'),
        tagged('C', 'prod', 'cloud_floating_ip.far', 'p2'),
        tagged('D', 'prod', 'cloud_floating_ip.kept'),
      ],
    );
    expect(result.resource_changes.map((c) => [c.address, c.action])).toEqual([
      ['cloud_floating_ip.web', 'create'],
      ['cloud_floating_ip.kept', 'no-op'],
    ]);
    const warnings = result.diagnostics.map((d) => [d.severity, d.summary, d.detail]);
    expect(warnings).toEqual([
      ['warning', expect.stringContaining('stack "prod" holds cloud_floating_ip.legacy'), expect.stringContaining('moved_from: cloud_floating_ip.legacy')],
      [
        'warning',
        'cloud_floating_ip.web would be created, and stack "old" holds a resource at the same address: was this stack renamed from "old"?',
        expect.stringContaining('add "renamed_from: old" at the top of this stack'),
      ],
    ]);
  });

  it('asks once per other stack whether this stack was renamed from it, naming every address they share, as a possibility', () => {
    const result = plan(
      [block('web', {}), block('db', {}), block('cache', {})],
      { 'cloud_floating_ip.web': missing, 'cloud_floating_ip.db': missing, 'cloud_floating_ip.cache': missing },
      [tagged('A', 'old', 'cloud_floating_ip.web'), tagged('B', 'old', 'cloud_floating_ip.db'), tagged('C', 'other', 'cloud_floating_ip.cache')],
    );
    expect(result.diagnostics.map((d) => [d.summary, d.detail, d.address])).toEqual([
      [
        '2 blocks would be created (cloud_floating_ip.web, cloud_floating_ip.db), and stack "old" holds resources at the same addresses: was this stack renamed from "old"?',
        'If it was, add "renamed_from: old" at the top of this stack: those resources are then re-tagged, not created anew. Unrelated stacks may use the same addresses; then nothing needs to change.',
        'cloud_floating_ip.web',
      ],
      [
        'cloud_floating_ip.cache would be created, and stack "other" holds a resource at the same address: was this stack renamed from "other"?',
        expect.stringContaining('Unrelated stacks may use the same addresses'),
        'cloud_floating_ip.cache',
      ],
    ]);
  });
});
