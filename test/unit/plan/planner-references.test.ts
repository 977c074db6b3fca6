import { describe, expect, it } from 'vitest';
import type { BlockReference } from '../../../src/config/types.js';
import { createPlan } from '../../../src/kinds/create.js';
import type { ProviderPlan, ReadResult } from '../../../src/kinds/provider.js';
import { buildPlan, type ResourcePlanners } from '../../../src/plan/planner.js';
import { parseTemplate, templateTargets, referenceAddress } from '../../../src/model/references.js';
import { KNOWN_AFTER_APPLY } from '../../../src/plan/types.js';
import { resource, stackOf } from '../../helpers/stack.js';

/**
 * The planner where references meet replacement (Terraform's semantics), with the stand-in kind
 * of lifecycle.test.ts: a fastedge_app whose `name` cannot change in place and whose `comment`
 * can. A block adopted by its app_id is never replaced: renaming it is the kind's error. The
 * references are resolved through the real fastedge_app kind (its readable fields and schema).
 */
const planners = (() => {
  const plan = (desired: Record<string, unknown>, state: Record<string, unknown>): ProviderPlan => {
    const before = { app_id: state.app_id, name: state.name, comment: state.comment };
    const renamed = desired.name !== undefined && desired.name !== state.name;
    const commented = desired.comment !== undefined && desired.comment !== state.comment;
    if (renamed && desired.app_id !== undefined)
      return { action: 'no-op', before, after: before, changes: [], errors: [{ summary: 'name cannot change in place', field: 'name' }], warnings: [], notes: [] };
    const changes = [
      ...(renamed ? [{ path: ['name'], op: 'update' as const, before: state.name, after: desired.name, forces_replacement: true }] : []),
      ...(commented ? [{ path: ['comment'], op: 'update' as const, before: state.comment, after: desired.comment }] : []),
    ];
    return {
      action: renamed ? 'replace' : commented ? 'update' : 'no-op',
      before,
      after: { ...before, name: desired.name ?? state.name, comment: desired.comment ?? state.comment },
      changes,
      payload: { name: desired.name, comment: desired.comment },
      errors: [],
      warnings: [],
      notes: [],
    };
  };
  const app = {
    idField: 'app_id',
    summarize: (state: Record<string, unknown>) => ({ app_id: state.app_id, name: state.name, comment: state.comment }),
    plan,
    create: {
      // An app commented `no-create` is one the kind refuses to create (its own error).
      plan: (desired: Record<string, unknown>) =>
        desired.comment === 'no-create'
          ? { ...createPlan({}, 'app_id', {}), errors: [{ summary: 'an app commented no-create cannot be created', field: 'comment' }] }
          : createPlan({ name: desired.name, comment: desired.comment }, 'app_id', { name: desired.name }),
      identity: (desired: Record<string, unknown>) => (desired.app_id === undefined ? `name ${JSON.stringify(desired.name)}` : null),
    },
  };
  // An adopt-only kind (no create) with the same rules: `name` cannot change in place.
  const network = { idField: 'network_id', summarize: app.summarize, plan };
  return { fastedge_app: app, cloud_network: network } as unknown as ResourcePlanners;
})();

const range = (line: number) => ({ filename: 'stack.yaml', start: { line, column: 11 }, end: { line, column: 40 } });

/** A fastedge_app block; `refs` maps a top-level field to the template it holds (line: where it stands). */
function app(
  name: string,
  attributes: Record<string, unknown>,
  refs: Record<string, [template: string, line: number]> = {},
  type: 'fastedge_app' | 'cloud_network' = 'fastedge_app',
) {
  const references: BlockReference[] = Object.entries(refs).map(([field, [template, line]]) => ({ path: [field], template, parts: parseTemplate(template)!, range: range(line) }));
  const dependsOn = [...new Set(references.flatMap((r) => templateTargets(r.parts).map(referenceAddress)))];
  const withRefs = {
    ensure: 'present',
    ...(type === 'fastedge_app' ? { binary: 7 } : { project_id: 1, region_id: 1 }),
    ...attributes,
    ...Object.fromEntries(Object.entries(refs).map(([field, [template]]) => [field, template])),
  };
  return { ...resource(type, name, withRefs as never, dependsOn), ...(references.length > 0 ? { references } : {}) };
}
const found = (state: Record<string, unknown>): ReadResult => ({ ok: true, observation: { exists: true, state } });

function plan(blocks: ReturnType<typeof app>[], reads: Record<string, ReadResult>, selected?: string[]) {
  return buildPlan({
    stack: stackOf(blocks),
    ...(selected ? { selected: new Set(selected) } : {}),
    reads: new Map(Object.entries(reads)),
    checks: new Map(),
    planners,
    baseUrl: 'http://127.0.0.1:1',
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0',
  });
}
const errors = (p: ReturnType<typeof plan>) => p.diagnostics.filter((d) => d.severity === 'error');

// a is renamed (replaced); b's name reads a's name.
const a = app('a', { name: 'a-new' });
const aRead = found({ app_id: 1, name: 'a-old', comment: 'x' });

describe('references to a replaced block', () => {
  it('replace a dependant whose create-only field reads it, saying it is replaced because of that block', () => {
    const b = app('b', {}, { name: ['${fastedge_app.a.name}-b', 5] });
    const p = plan([a, b], { 'fastedge_app.a': aRead, 'fastedge_app.b': found({ app_id: 2, name: 'a-old-b', comment: 'x' }) });
    expect(errors(p)).toEqual([]);
    const change = p.resource_changes.find((c) => c.address === 'fastedge_app.b')!;
    expect(change.action).toBe('replace');
    expect(change.replaced_because).toEqual(['fastedge_app.a']);
    expect(change.references).toEqual([{ path: ['name'], template: '${fastedge_app.a.name}-b' }]);
    expect(change.notes).toContain('name = ${fastedge_app.a.name}-b (known after apply)');
    expect((change.desired as Record<string, unknown>).name).toBe(KNOWN_AFTER_APPLY);
    expect(change.after_unknown).toEqual({ app_id: true, name: true });
    expect(p.summary).toEqual({ add: 2, change: 0, destroy: 2, read: 0 });
  });

  it('say nothing of the dependency when the dependant is replaced for its own reasons as much', () => {
    const b = app('b', {}, { name: ['${fastedge_app.a.name}-b', 5] });
    const p = plan([a, b], { 'fastedge_app.a': aRead, 'fastedge_app.b': found({ app_id: 2, name: 'something-else', comment: 'x' }) });
    const change = p.resource_changes.find((c) => c.address === 'fastedge_app.b')!;
    expect(change.action).toBe('replace');
    expect(change).not.toHaveProperty('replaced_because');
  });

  it('leave an update of a dependant whose field is updatable in place pending, not replaced', () => {
    const b = app('b', { name: 'b' }, { comment: ['${fastedge_app.a.name}', 5] });
    const p = plan([a, b], { 'fastedge_app.a': aRead, 'fastedge_app.b': found({ app_id: 2, name: 'b', comment: 'a-old' }) });
    const change = p.resource_changes.find((c) => c.address === 'fastedge_app.b')!;
    expect([change.action, change.replaced_because, change.references]).toEqual(['update', undefined, [{ path: ['comment'], template: '${fastedge_app.a.name}' }]]);
  });

  it('refuse a dependant adopted by its id, naming both, the field that forces the replacement and the fix', () => {
    const b = app('b', { app_id: 2 }, { name: ['${fastedge_app.a.name}-b', 5] });
    const p = plan([a, b], { 'fastedge_app.a': aRead, 'fastedge_app.b': found({ app_id: 2, name: 'a-old-b', comment: 'x' }) });
    expect(errors(p)).toEqual([
      {
        severity: 'error',
        code: 'plan-error',
        summary:
          'fastedge_app.b would have to be replaced with fastedge_app.a, which is replaced (name reads ${fastedge_app.a.name}-b), but it is adopted by its app_id, and edgeform never replaces a resource adopted by its id',
        detail:
          'Remove app_id from fastedge_app.b: edgeform then replaces it together with fastedge_app.a and finds it again by its name. Or keep fastedge_app.a as it is (its name cannot change in place).',
        address: 'fastedge_app.b',
        range: range(5),
      },
    ]);
    expect(p.resource_changes.map((c) => c.address)).toEqual(['fastedge_app.a']);
  });

  it('name every replaced block a dependant reads, in plan order, and why each is replaced', () => {
    const c = app('c', { name: 'c-new' });
    const b = app('b', { app_id: 2 }, { name: ['${fastedge_app.c.name}-${fastedge_app.a.name}', 5] });
    const p = plan([b, c, a], {
      'fastedge_app.a': aRead,
      'fastedge_app.c': found({ app_id: 3, name: 'c-old' }),
      'fastedge_app.b': found({ app_id: 2, name: 'c-old-a-old' }),
    });
    const [error] = errors(p);
    expect(error!.summary).toBe(
      'fastedge_app.b would have to be replaced with fastedge_app.c and fastedge_app.a, which are replaced (name reads ${fastedge_app.c.name}-${fastedge_app.a.name}), but it is adopted by its app_id, and edgeform never replaces a resource adopted by its id',
    );
    expect(error!.detail).toBe(
      "Remove app_id from fastedge_app.b: edgeform then replaces it together with fastedge_app.c and fastedge_app.a and finds it again by its name. Or keep fastedge_app.c and fastedge_app.a as they are (fastedge_app.c's name cannot change in place; fastedge_app.a's name cannot change in place).",
    );
  });

  it('name three replaced blocks in plan order, whatever order the template reads them in', () => {
    const c = app('c', { name: 'c-new' });
    const e = app('e', { name: 'e-new' });
    const b = app('b', { app_id: 2 }, { name: ['${fastedge_app.a.name}-${fastedge_app.e.name}-${fastedge_app.c.name}', 5] });
    const p = plan([b, c, a, e], {
      'fastedge_app.a': aRead,
      'fastedge_app.c': found({ app_id: 3, name: 'c-old' }),
      'fastedge_app.e': found({ app_id: 5, name: 'e-old' }),
      'fastedge_app.b': found({ app_id: 2, name: 'a-old-e-old-c-old' }),
    });
    expect(errors(p)[0]!.summary).toMatch(/^fastedge_app\.b would have to be replaced with fastedge_app\.c, fastedge_app\.a and fastedge_app\.e, which are replaced /);
  });

  it('say a dependency is itself replaced because of another, down a chain', () => {
    const b = app('b', {}, { name: ['${fastedge_app.a.name}-b', 5] });
    const d = app('d', { app_id: 4 }, { name: ['${fastedge_app.b.name}-d', 9] });
    const p = plan([a, b, d], {
      'fastedge_app.a': aRead,
      'fastedge_app.b': found({ app_id: 2, name: 'a-old-b' }),
      'fastedge_app.d': found({ app_id: 4, name: 'a-old-b-d' }),
    });
    expect(errors(p).map((e) => e.detail)).toEqual([
      'Remove app_id from fastedge_app.d: edgeform then replaces it together with fastedge_app.b and finds it again by its name. Or keep fastedge_app.b as it is (fastedge_app.b is replaced because fastedge_app.a is replaced).',
    ]);
  });

  it('refuse a dependant whose kind cannot be created, naming both and what to keep', () => {
    const net = app('net', {}, { name: ['${fastedge_app.a.name}-net', 6] }, 'cloud_network');
    const p = plan([a, net], { 'fastedge_app.a': aRead, 'cloud_network.net': found({ network_id: 'n1', name: 'a-old-net' }) });
    expect(errors(p)).toEqual([
      {
        severity: 'error',
        code: 'plan-error',
        summary:
          'cloud_network.net would have to be replaced with fastedge_app.a, which is replaced (name reads ${fastedge_app.a.name}-net), but edgeform cannot create a cloud_network',
        detail: 'Keep fastedge_app.a as it is (its name cannot change in place).',
        address: 'cloud_network.net',
        range: range(6),
      },
    ]);
  });

  it("refuse a dependant whose replacement the kind refuses to create, with the kind's reason", () => {
    const b = app('b', { comment: 'no-create' }, { name: ['${fastedge_app.a.name}-b', 5] });
    const p = plan([a, b], { 'fastedge_app.a': aRead, 'fastedge_app.b': found({ app_id: 2, name: 'a-old-b', comment: 'no-create' }) });
    expect(errors(p).map((e) => [e.summary, e.detail])).toEqual([
      [
        'fastedge_app.b would have to be replaced with fastedge_app.a, which is replaced (name reads ${fastedge_app.a.name}-b), but fastedge_app.b: an app commented no-create cannot be created',
        'Keep fastedge_app.a as it is (its name cannot change in place).',
      ],
    ]);
  });

  it('keep the kind’s own error where planning as if the dependency were kept fails too', () => {
    const b = app('b', { app_id: 2 }, { name: ['${fastedge_app.a.name}-b', 5] });
    const p = plan([a, b], { 'fastedge_app.a': aRead, 'fastedge_app.b': found({ app_id: 2, name: 'unrelated' }) });
    expect(errors(p).map((e) => e.summary)).toEqual(['fastedge_app.b: name cannot change in place']);
  });
});

describe('a block the kind cannot replace', () => {
  it('is refused where a field that cannot change in place differs and the kind cannot be created', () => {
    const net = app('net', { name: 'net-new' }, {}, 'cloud_network');
    const p = plan([net], { 'cloud_network.net': found({ network_id: 'n1', name: 'net-old' }) });
    expect([p.resource_changes, errors(p).map((e) => [e.summary, e.address])]).toEqual([
      [],
      [['cloud_network.net: a field that cannot change in place differs, and edgeform cannot create a cloud_network', 'cloud_network.net']],
    ]);
  });

  it("is refused with the kind's own error where the kind refuses to create its replacement", () => {
    const b = app('b', { name: 'b-new', comment: 'no-create' });
    const p = plan([b], { 'fastedge_app.b': found({ app_id: 2, name: 'b-old', comment: 'no-create' }) });
    expect([p.resource_changes, errors(p).map((e) => e.summary)]).toEqual([[], ['fastedge_app.b: an app commented no-create cannot be created']]);
  });

  it("is refused, for a new block, with the kind's own error where the kind refuses the create", () => {
    const p = plan([app('c', { name: 'c', comment: 'no-create' })], { 'fastedge_app.c': { ok: true, observation: { exists: false } } });
    expect([p.resource_changes, errors(p).map((e) => e.summary)]).toEqual([[], ['fastedge_app.c: an app commented no-create cannot be created']]);
  });

  it('is replaced with the note of the field that forces it', () => {
    const p = plan([app('b', { name: 'b-new' })], { 'fastedge_app.b': found({ app_id: 2, name: 'b-old' }) });
    expect(p.resource_changes[0]!.notes).toEqual(['name cannot be changed in place: the fastedge_app is destroyed and created again']);
  });

  it('that names an id that does not exist is an error saying the kind is adopt-only', () => {
    const net = app('net', { name: 'net', network_id: '7c1d0a52-5f2e-4c3b-9d6a-1e2f3a4b5c6d' }, {}, 'cloud_network');
    const p = plan([net], { 'cloud_network.net': { ok: true, observation: { exists: false } } });
    expect(errors(p).map((e) => [e.code, e.summary, e.detail])).toEqual([
      [
        'resource-missing',
        'cloud_network.net: cloud_network "7c1d0a52-5f2e-4c3b-9d6a-1e2f3a4b5c6d" does not exist; edgeform adopts existing resources by id',
        'edgeform cannot create a cloud_network (the kind is adopt-only): check the id, or remove the block if the resource was deleted on purpose.',
      ],
    ]);
  });
});

describe('references the plan resolves', () => {
  it('read a block deleted as observed in a block deleted before it (a delete waits on no reference)', () => {
    const gone = app('gone', { ensure: 'absent' }, { comment: ['${fastedge_app.a.name}', 5] });
    const p = plan([app('a', { name: 'a-old', ensure: 'absent' }), gone], { 'fastedge_app.a': aRead, 'fastedge_app.gone': found({ app_id: 9, name: 'gone', comment: 'x' }) });
    const change = p.resource_changes.find((c) => c.address === 'fastedge_app.gone')!;
    expect([change.action, (change.desired as Record<string, unknown>).comment, change.references]).toEqual(['delete', 'a-old', undefined]);
  });

  it('leave a delete that reads a replaced block without pending references: it waits on none', () => {
    const gone = app('gone', { ensure: 'absent' }, { comment: ['${fastedge_app.a.name}', 5] });
    const p = plan([a, gone], { 'fastedge_app.a': aRead, 'fastedge_app.gone': found({ app_id: 9, name: 'gone', comment: 'x' }) });
    const change = p.resource_changes.find((c) => c.address === 'fastedge_app.gone')!;
    expect([change.action, change.references, change.after_unknown]).toEqual(['delete', undefined, undefined]);
  });

  it('write the observed value in where the referenced block keeps its field', () => {
    const b = app('b', {}, { name: ['${fastedge_app.a.name}-b', 5], comment: ['id ${fastedge_app.a.id}', 6] });
    const p = plan([app('a', { name: 'a-old' }), b], { 'fastedge_app.a': aRead, 'fastedge_app.b': found({ app_id: 2, name: 'a-old-b', comment: 'id 1' }) });
    expect(errors(p)).toEqual([]);
    const change = p.resource_changes.find((c) => c.address === 'fastedge_app.b')!;
    expect([change.action, (change.desired as Record<string, unknown>).name, (change.desired as Record<string, unknown>).comment]).toEqual(['no-op', 'a-old-b', 'id 1']);
    expect(change).not.toHaveProperty('references');
    expect(change).not.toHaveProperty('after_unknown');
    expect(p.applyable).toBe(false);
  });

  it('refuse a reference to a field the platform holds no value for, at the reference', () => {
    const b = app('b', { name: 'b' }, { comment: ['${fastedge_app.a.url}', 6] });
    const p = plan([app('a', { name: 'a-old' }), b], { 'fastedge_app.a': aRead, 'fastedge_app.b': found({ app_id: 2, name: 'b' }) });
    expect(errors(p)).toEqual([
      {
        severity: 'error',
        code: 'plan-error',
        summary:
          'fastedge_app.b: comment: ${fastedge_app.a.url} has no value: fastedge_app.a exists and this apply does not change it, but the platform holds no value for its url',
        address: 'fastedge_app.b',
        range: range(6),
      },
    ]);
    expect(p.resource_changes.map((c) => c.address)).toEqual(['fastedge_app.a']);
  });

  it("refuse a resolved value the field's schema does not take, naming the value and why", () => {
    const b = app('b', {}, { name: ['${fastedge_app.a.name}_B', 5] });
    const p = plan([app('a', { name: 'a-old' }), b], { 'fastedge_app.a': aRead, 'fastedge_app.b': found({ app_id: 2, name: 'b' }) });
    expect(errors(p)).toEqual([
      {
        severity: 'error',
        code: 'plan-error',
        summary: expect.stringMatching(/^fastedge_app\.b: name: \$\{fastedge_app\.a\.name\}_B is "a-old_B", which an app name is 2 or more lowercase letters/),
        address: 'fastedge_app.b',
        range: range(5),
      },
    ]);
  });

  it('refuse a targeted plan that replaces a block another block reads but leaves that block out', () => {
    const b = app('b', {}, { name: ['${fastedge_app.a.name}-b', 5] });
    const c = app('c', { name: 'c' });
    const reads = { 'fastedge_app.a': aRead, 'fastedge_app.b': found({ app_id: 2, name: 'a-old-b' }), 'fastedge_app.c': found({ app_id: 3, name: 'c' }) };
    expect(errors(plan([a, b, c], reads, ['fastedge_app.a', 'fastedge_app.c']))).toEqual([
      {
        severity: 'error',
        code: 'plan-error',
        summary: 'fastedge_app.a is replaced, but fastedge_app.b, which reads it (name), is not in the --target selection: it would be left on what is destroyed',
        detail: "Add --target fastedge_app.b (it is then planned with fastedge_app.a's new values), or plan without --target.",
        address: 'fastedge_app.b',
        range: range(5),
      },
    ]);
    expect(plan([a, b, c], reads, ['fastedge_app.a', 'fastedge_app.c']).diagnostics).toHaveLength(1);
    // A block left out that reads only what is kept is no error.
    const d = app('d', {}, { name: ['${fastedge_app.c.name}-d', 7] });
    expect(plan([a, c, d], { ...reads, 'fastedge_app.d': found({ app_id: 4, name: 'c-d' }) }, ['fastedge_app.a', 'fastedge_app.c']).diagnostics).toEqual([]);
    expect(errors(plan([a, b, c], reads, ['fastedge_app.a', 'fastedge_app.b']))).toEqual([]);
    expect(errors(plan([app('a', { name: 'a-old' }), b, c], reads, ['fastedge_app.a']))).toEqual([]);
  });
});
