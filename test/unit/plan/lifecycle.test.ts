import { describe, expect, it } from 'vitest';
import { buildPlan, OWNERSHIP_UNPROVEN, type ResourcePlanners } from '../../../src/plan/planner.js';
import { applySteps } from '../../../src/plan/apply-steps.js';
import { KNOWN_AFTER_APPLY, type ResourceChange } from '../../../src/plan/types.js';
import { createPlan } from '../../../src/kinds/create.js';
import type { OwnedRead, OwnedResource, ProviderPlan, ReadResult } from '../../../src/kinds/provider.js';
import { renderPlanText } from '../../../src/render/plan-text.js';
import { resource, stackOf } from '../../helpers/stack.js';

/**
 * Planners whose fastedge_app can be created (found by name) and whose `name` cannot change in
 * place: the planner's create, replace and prune logic is generic, so one stand-in kind proves it.
 */
const planners = (() => {
  const plan = (desired: Record<string, unknown>, state: Record<string, unknown>): ProviderPlan => {
    const before = { app_id: state.app_id, name: state.name };
    const renamed = desired.name !== undefined && desired.name !== state.name;
    return {
      action: renamed ? 'replace' : 'no-op',
      before,
      after: { ...before, name: desired.name ?? state.name },
      changes: renamed ? [{ path: ['name'], op: 'update', before: state.name, after: desired.name, forces_replacement: true }] : [],
      errors: [],
      warnings: [],
      notes: [],
    };
  };
  const app = {
    summarize: (state: Record<string, unknown>) => ({ app_id: state.app_id, name: state.name }),
    plan,
    create: {
      plan: (desired: Record<string, unknown>) => createPlan({ name: desired.name }, 'app_id', { name: desired.name }),
      identity: (desired: Record<string, unknown>) => (desired.app_id === undefined ? `name ${JSON.stringify(desired.name)}` : null),
    },
  };
  // A kind whose platform id is its natural key (a DNS zone's name), with the same rules.
  return { fastedge_app: app, dns_zone: app } as unknown as ResourcePlanners;
})();

const block = (name: string, attributes: Record<string, unknown>, dependsOn: string[] = []) =>
  resource('fastedge_app', name, { ensure: 'present', ...attributes } as never, dependsOn);
const found = (state: Record<string, unknown>, foundBy?: string): ReadResult => ({ ok: true, observation: { exists: true, state, ...(foundBy ? { foundBy } : {}) } });
const missing: ReadResult = { ok: true, observation: { exists: false } };

function plan(blocks: ReturnType<typeof block>[], reads: Record<string, ReadResult>, options: { owned?: OwnedRead[]; name?: string; prune?: boolean } = {}) {
  const stack = { ...stackOf(blocks), ...(options.name ? { name: options.name } : {}), prune: options.prune ?? false };
  return buildPlan({
    stack,
    reads: new Map(Object.entries(reads)),
    checks: new Map(),
    ...(options.owned ? { owned: options.owned } : {}),
    planners,
    baseUrl: 'http://127.0.0.1:1',
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0',
  });
}

describe('create: a block without an id whose identity matches nothing', () => {
  const result = plan([block('edge', { name: 'edge' })], { 'fastedge_app.edge': missing });
  const change = result.resource_changes[0]!;

  it('is planned for create, with the id known after apply and the identity it will be found by', () => {
    expect(change).toMatchObject({ action: 'create', before: null, after: { app_id: KNOWN_AFTER_APPLY, name: 'edge' }, payload: { name: 'edge' }, identity: 'name "edge"' });
    expect(change.changes).toEqual([{ path: ['name'], op: 'add', after: 'edge' }]);
  });

  it('counts as an add and makes the plan applyable', () => {
    expect(result.summary).toMatchObject({ add: 1, change: 0, destroy: 0 });
    expect(result.applyable).toBe(true);
    expect(result.errored).toBe(false);
  });

  it('renders with Terraform vocabulary: + create, (known after apply), the footer counting the add', () => {
    const text = renderPlanText(result);
    expect(text).toContain('  + create');
    expect(text).toContain('  # fastedge_app.edge will be created (to be found by name "edge")');
    expect(text).toContain('    + app_id: (known after apply)');
    expect(text).toContain('    + name: "edge"');
    expect(text).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
  });
});

describe('adopting and missing', () => {
  it('a block found by its identity is adopted: planned like any other, saying what matched', () => {
    const result = plan([block('edge', { name: 'edge' })], { 'fastedge_app.edge': found({ app_id: 7, name: 'edge' }, 'name "edge"') });
    expect(result.resource_changes[0]).toMatchObject({ action: 'no-op', identity: 'name "edge"' });
    expect(result.summary.add).toBe(0);
  });

  it('a block adopted by its id carries no identity, kept or deleted', () => {
    for (const ensure of ['present', 'absent']) {
      const change = plan([block('edge', { app_id: 7, name: 'edge', ensure })], { 'fastedge_app.edge': found({ app_id: 7, name: 'edge' }) }).resource_changes[0]!;
      expect(Object.keys(change), ensure).not.toContain('identity');
    }
  });

  it('a block that names an id that does not exist is an error, never a create', () => {
    const result = plan([block('edge', { app_id: 9, name: 'edge' })], { 'fastedge_app.edge': missing });
    expect(result.resource_changes).toEqual([]);
    expect(result.errored).toBe(true);
    expect(result.diagnostics[0]).toMatchObject({ code: 'resource-missing', address: 'fastedge_app.edge' });
    expect(result.diagnostics[0]!.detail).toContain('remove app_id to have edgeform create the fastedge_app');
  });

  it('a block of a kind whose id is its natural key (a DNS zone by its name) is created when absent, though it names its id', () => {
    const zone = resource('dns_zone', 'shop', { ensure: 'present', name: 'shop.example' } as never);
    const result = plan([zone as never], { 'dns_zone.shop': missing });
    expect([result.errored, result.resource_changes.map((c) => [c.address, c.action])]).toEqual([false, [['dns_zone.shop', 'create']]]);
  });

  it('ensure: absent of a block found by identity destroys it; of one found nowhere is a no-op', () => {
    const gone = plan([block('edge', { name: 'edge', ensure: 'absent' })], { 'fastedge_app.edge': found({ app_id: 7, name: 'edge' }, 'name "edge"') });
    expect(gone.resource_changes[0]).toMatchObject({ action: 'delete', identity: 'name "edge"' });
    const none = plan([block('edge', { name: 'edge', ensure: 'absent' })], { 'fastedge_app.edge': missing });
    expect(none.resource_changes[0]).toMatchObject({ action: 'no-op', notes: ['already absent'] });
  });
});

describe('replace: a field that cannot change in place', () => {
  const result = plan([block('edge', { app_id: 7, name: 'new' })], { 'fastedge_app.edge': found({ app_id: 7, name: 'old' }) });
  const change = result.resource_changes[0]!;

  it('is -/+ with the create payload, counted as one add and one destroy', () => {
    expect(change).toMatchObject({ action: 'replace', payload: { name: 'new' }, after: { app_id: KNOWN_AFTER_APPLY, name: 'new' } });
    expect(change.notes[0]).toContain('name cannot be changed in place');
    expect(result.summary).toMatchObject({ add: 1, change: 0, destroy: 1 });
  });

  it('renders -/+ and says which field forces it', () => {
    const text = renderPlanText(result);
    expect(text).toContain('-/+ destroy and then create replacement');
    expect(text).toContain('  # fastedge_app.edge must be replaced');
    expect(text).toContain('~ name: "old" -> "new" # forces replacement');
    expect(text).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
  });
});

describe('prune', () => {
  const owned = (address: string, id: number): OwnedResource => ({
    stack: 'prod',
    place: 'account',
    address,
    desired: { app_id: id, ensure: 'absent' },
    observation: { exists: true, state: { app_id: id, name: `app-${id}` } },
  });
  const kept = block('kept', { name: 'kept' });
  const reads = { 'fastedge_app.kept': found({ app_id: 1, name: 'kept' }, 'name "kept"') };

  it('destroys what carries the mark but is no longer declared, listed first, and never what a block declares', () => {
    const result = plan([kept], reads, {
      name: 'prod',
      prune: true,
      owned: [{ type: 'fastedge_app', ok: true, resources: [owned('fastedge_app.kept', 1), owned('fastedge_app.gone', 2)] }],
    });
    expect(result.resource_changes.map((c) => [c.address, c.action, c.pruned ?? false])).toEqual([
      ['fastedge_app.gone', 'delete', true],
      ['fastedge_app.kept', 'no-op', false],
    ]);
    expect(result.resource_changes[0]!.desired).toEqual({ app_id: 2, ensure: 'absent' });
    expect(result.summary.destroy).toBe(1);
    expect(renderPlanText(result)).toContain('  - fastedge_app.gone (pruned)');
  });

  it('leaves alone a mark naming an address of another kind, with a warning', () => {
    const result = plan([kept], reads, { name: 'prod', prune: true, owned: [{ type: 'fastedge_app', ok: true, resources: [owned('cloud_floating_ip.x', 3)] }] });
    expect(result.resource_changes.map((c) => c.address)).toEqual(['fastedge_app.kept']);
    expect(result.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', code: 'prune-skipped' })]);
  });

  const prune = (...resources: OwnedResource[]) => plan([kept], reads, { name: 'prod', prune: true, owned: [{ type: 'fastedge_app', ok: true, resources }] });
  const outcome = (result: ReturnType<typeof plan>) => ({
    deleted: result.resource_changes.filter((c) => c.action === 'delete').map((c) => c.address),
    diagnostics: result.diagnostics.map((d) => [d.severity, d.code, d.summary, d.address]),
  });

  it('destroys the resource as it was listed: its name, its lock, what waits for its destroy, and why it is pruned', () => {
    const listed: OwnedResource = {
      ...owned('fastedge_app.gone', 2),
      dependsOn: ['fastedge_app.kept'],
      pruneReason: 'no block declares it, and the kind says why',
      observation: { exists: true, state: { app_id: 2, name: 'app-2' }, lockTaskId: 'task-9' },
    };
    const [change] = prune(listed).resource_changes;
    expect(change).toEqual({
      address: 'fastedge_app.gone',
      type: 'fastedge_app',
      name: 'gone',
      desired: { app_id: 2, ensure: 'absent' },
      depends_on: ['fastedge_app.kept'],
      lock_task_id: 'task-9',
      action: 'delete',
      before: { app_id: 2, name: 'app-2' },
      after: null,
      changes: [],
      fingerprint: expect.any(String),
      warnings: ['locked by running platform task task-9; apply waits for it to finish before changing anything'],
      notes: ['no block declares it, and the kind says why'],
      pruned: true,
    });
    // The listing's desired says present: a delete says ensure: absent whatever it wrote, and nothing waits for it.
    const plain = prune({ ...owned('fastedge_app.gone', 2), desired: { app_id: 2, ensure: 'present' } as never }).resource_changes[0]!;
    expect([plain.desired, plain.depends_on, plain.lock_task_id, plain.warnings, plain.notes]).toEqual([
      { app_id: 2, ensure: 'absent' },
      [],
      null,
      [],
      ["no block declares it any more, and it carries this stack's ownership tags (prune: true)"],
    ]);
  });

  it("never destroys another stack's resource", () => {
    expect(outcome(prune({ ...owned('fastedge_app.gone', 2), stack: 'staging' }))).toEqual({ deleted: [], diagnostics: [] });
  });

  it('leaves alone, with a warning naming it, a resource whose owner mark is unproven', () => {
    expect(outcome(prune({ ...owned('fastedge_app.gone', 2), unproven: 'it has no owner mark while EDGEFORM_OWNER_KEY is set' }))).toEqual({
      deleted: [],
      diagnostics: [
        [
          'warning',
          OWNERSHIP_UNPROVEN,
          'prune: fastedge_app.gone (fastedge_app 2) names stack "prod", but it has no owner mark while EDGEFORM_OWNER_KEY is set; it is left alone',
          'fastedge_app.gone',
        ],
      ],
    });
  });

  it('leaves alone every resource of an address two marked resources carry in one place (a copied mark)', () => {
    const copy = (id: number, place = 'account'): OwnedResource => ({ ...owned('fastedge_app.gone', id), mark: 'valid', place });
    const why = (id: number) => [
      'warning',
      OWNERSHIP_UNPROVEN,
      `prune: fastedge_app.gone (fastedge_app ${id}) names stack "prod", but it carries the same ownership (fastedge_app.gone) as another fastedge_app in account: a copied mark; it is left alone`,
      'fastedge_app.gone',
    ];
    expect(outcome(prune(copy(2), copy(3), { ...owned('fastedge_app.other', 4), mark: 'valid' }))).toEqual({ deleted: ['fastedge_app.other'], diagnostics: [why(2), why(3)] });
  });

  it('destroys one resource per address: a second one (unmarked, or marked in another place) is left alone with a warning', () => {
    const skipped = [
      'warning',
      'prune-skipped',
      'prune: a fastedge_app carries stack "prod"\'s ownership tags with address "fastedge_app.gone", like another one; it is left alone',
      undefined,
    ];
    expect(outcome(prune(owned('fastedge_app.gone', 2), owned('fastedge_app.gone', 3)))).toEqual({ deleted: ['fastedge_app.gone'], diagnostics: [skipped] });
    const marked = (id: number, place: string): OwnedResource => ({ ...owned('fastedge_app.gone', id), mark: 'valid', place });
    expect(outcome(prune(marked(2, 'account'), marked(3, 'elsewhere')))).toEqual({ deleted: ['fastedge_app.gone'], diagnostics: [skipped] });
  });

  it('leaves alone a mark that is not an address of its kind: another kind, or the type without a name', () => {
    const notOfKind = (address: string) => [
      'warning',
      'prune-skipped',
      `prune: a fastedge_app carries stack "prod"'s ownership tags with address "${address}", which is not an address of its kind; it is left alone`,
      undefined,
    ];
    expect(outcome(prune(owned('cloud_floating_ip.x', 3), owned('fastedge_app', 4)))).toEqual({
      deleted: [],
      diagnostics: [notOfKind('cloud_floating_ip.x'), notOfKind('fastedge_app')],
    });
  });

  it('a listing that failed is an error: prune cannot say what it would leave behind', () => {
    const result = plan([kept], reads, { name: 'prod', prune: true, owned: [{ type: 'fastedge_app', ok: false, error: { summary: 'HTTP 500' } }] });
    expect(result.errored).toBe(true);
    expect(result.diagnostics[0]!.summary).toContain('prune: listing the fastedge_app resources of stack "prod" failed: HTTP 500');
    expect(result.diagnostics[0]!.code).toBe('plan-error');
  });
});

describe('apply order', () => {
  const change = (address: string, action: ResourceChange['action'], depends_on: string[] = [], pruned?: true) => ({ address, action, depends_on, ...(pruned ? { pruned } : {}) });
  const edges = (changes: ReturnType<typeof change>[], checks: { address: string; depends_on: string[] }[] = []) =>
    applySteps(changes, checks).steps.map((s) => ({ key: s.key, dependsOn: s.dependsOn }));

  it('destroys a dependant before what it depends on (the reverse of create order)', () => {
    expect(edges([change('a.db', 'delete'), change('a.app', 'delete', ['a.db'])])).toEqual([
      { key: 'a.db', dependsOn: ['a.app'] },
      { key: 'a.app', dependsOn: [] },
    ]);
  });

  it('keeps create and update order: a dependant waits for what it depends on', () => {
    expect(edges([change('a.db', 'create'), change('a.app', 'update', ['a.db'])])).toEqual([
      { key: 'a.db', dependsOn: [] },
      { key: 'a.app', dependsOn: ['a.db'] },
    ]);
  });

  it("runs a chain of replacements as Terraform does: the dependants' destroys, the dependency's destroy, its create, then the dependants' creates", () => {
    expect(edges([change('a.net', 'replace'), change('a.subnet', 'replace', ['a.net']), change('a.vm', 'replace', ['a.net', 'a.subnet'])])).toEqual([
      { key: 'a.net#destroy', dependsOn: ['a.subnet#destroy', 'a.vm#destroy'] },
      { key: 'a.net', dependsOn: ['a.net#destroy'] },
      { key: 'a.subnet#destroy', dependsOn: ['a.vm#destroy'] },
      { key: 'a.subnet', dependsOn: ['a.subnet#destroy', 'a.net'] },
      { key: 'a.vm#destroy', dependsOn: [] },
      { key: 'a.vm', dependsOn: ['a.vm#destroy', 'a.net', 'a.subnet'] },
    ]);
  });

  it("a replace's destroy waits for the checks its block depends on (a gate); an update of a replaced block's dependant waits for its create, a delete of one comes before its destroy", () => {
    expect(
      edges([change('a.boot', 'replace', ['c.ready']), change('a.name', 'update', ['a.boot']), change('a.old', 'delete', ['a.boot'])], [{ address: 'c.ready', depends_on: [] }]),
    ).toEqual([
      { key: 'a.boot#destroy', dependsOn: ['c.ready', 'a.old'] },
      { key: 'a.boot', dependsOn: ['a.boot#destroy', 'c.ready'] },
      { key: 'a.name', dependsOn: ['a.boot'] },
      { key: 'a.old', dependsOn: [] },
    ]);
  });

  it("what prune destroys comes before any replace's destroy (through one gate): a pruned instance may use a replaced subnet", () => {
    const changes = [change('a.old_vm', 'delete', [], true), change('a.old_ip', 'delete', [], true), change('a.subnet', 'replace'), change('a.gone', 'delete')];
    expect(applySteps(changes).gates).toEqual([{ address: '#pruned', depends_on: ['a.old_vm', 'a.old_ip'] }]);
    expect(edges(changes)).toEqual([
      { key: 'a.old_vm', dependsOn: [] },
      { key: 'a.old_ip', dependsOn: [] },
      { key: 'a.subnet#destroy', dependsOn: ['#pruned'] },
      { key: 'a.subnet', dependsOn: ['a.subnet#destroy'] },
      { key: 'a.gone', dependsOn: [] },
    ]);
    expect(applySteps([change('a.old_vm', 'delete', [], true), change('a.gone', 'delete')]).gates).toEqual([]);
  });

  it('a delete never waits for what waits for a destroy (that could wait for the delete in turn)', () => {
    // a.x is deleted; it depends on a.z (an update waiting for a.q's replacement) and on a.q itself.
    const steps = edges([change('a.q', 'replace'), change('a.z', 'update', ['a.q']), change('a.x', 'delete', ['a.z', 'a.q'])]);
    expect(steps).toEqual([
      { key: 'a.q#destroy', dependsOn: ['a.x'] },
      { key: 'a.q', dependsOn: ['a.q#destroy'] },
      { key: 'a.z', dependsOn: ['a.q'] },
      { key: 'a.x', dependsOn: [] },
    ]);
  });

  it('a delete waits for what it depends on that is not destroyed: an update or a create, and a check', () => {
    expect(edges([change('a.db', 'update'), change('a.net', 'create'), change('a.app', 'delete', ['a.db', 'a.net', 'c.ok'])], [{ address: 'c.ok', depends_on: [] }])).toEqual([
      { key: 'a.db', dependsOn: [] },
      { key: 'a.net', dependsOn: [] },
      { key: 'a.app', dependsOn: ['a.db', 'a.net', 'c.ok'] },
    ]);
  });

  it('a delete waits for an update that itself waits for another update: only what waits for a destroy is left out', () => {
    expect(edges([change('a.db', 'update'), change('a.app', 'update', ['a.db']), change('a.x', 'delete', ['a.app'])]).find((s) => s.key === 'a.x')).toEqual({
      key: 'a.x',
      dependsOn: ['a.app'],
    });
  });

  it('a delete never waits for what waits for a destroy through a check', () => {
    const steps = edges([change('a.q', 'replace'), change('a.z', 'update', ['c.q_up']), change('a.x', 'delete', ['a.z'])], [{ address: 'c.q_up', depends_on: ['a.q'] }]);
    expect(steps.find((s) => s.key === 'a.x')).toEqual({ key: 'a.x', dependsOn: [] });
  });

  it('names the part of its change each step carries out: a whole change, or the destroy and the create of a replace', () => {
    const { steps } = applySteps([change('a.n', 'update'), change('a.d', 'delete'), change('a.r', 'replace'), change('a.c', 'create')]);
    expect(steps.map((s) => [s.key, s.address, s.phase])).toEqual([
      ['a.n', 'a.n', 'change'],
      ['a.d', 'a.d', 'change'],
      ['a.r#destroy', 'a.r', 'destroy'],
      ['a.r', 'a.r', 'create'],
      ['a.c', 'a.c', 'change'],
    ]);
  });
});

describe('prune and --target', () => {
  it('a targeted plan prunes nothing and says so', () => {
    const kept = block('kept', { name: 'kept' });
    const stack = { ...stackOf([kept]), name: 'prod', prune: true };
    const result = buildPlan({
      stack,
      selected: new Set(['fastedge_app.kept']),
      reads: new Map([['fastedge_app.kept', found({ app_id: 1, name: 'kept' })]]),
      checks: new Map(),
      planners,
      baseUrl: 'http://127.0.0.1:1',
      createdAt: '2026-01-01T00:00:00.000Z',
      edgeformVersion: '0.0.0',
    });
    expect(result.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', code: 'prune-skipped', summary: expect.stringContaining('--target') })]);
  });
});
