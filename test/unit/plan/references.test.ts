import { describe, expect, it } from 'vitest';
import type { BlockReference } from '../../../src/config/types.js';
import type { ReadResult } from '../../../src/kinds/provider.js';
import { isWholeTemplate, parseReference, parseTemplate, resolveTemplate, WHOLE_RESOURCE_REFERENCE, writeTemplate, type ReferenceTarget } from '../../../src/model/references.js';
import {
  checkResolvedAttributes,
  pendingSources,
  readReferencedValue,
  resolvePending,
  resolveReferences,
  unknownsOf,
  type ReferenceSources,
} from '../../../src/plan/references.js';
import { KNOWN_AFTER_APPLY, type FieldChange } from '../../../src/plan/types.js';

const range = { filename: 'stack.yaml', start: { line: 1, column: 1 }, end: { line: 1, column: 2 } };
const IP = 'cloud_floating_ip.edge';
const reference = (path: (string | number)[], template: string, stringify = false): BlockReference => ({
  path,
  template,
  parts: parseTemplate(template)!,
  range,
  ...(stringify ? { stringify: true as const } : {}),
});
const read = (state: Record<string, unknown>): ReadResult => ({ ok: true, observation: { exists: true, state } });
const sources = (change: { action: 'no-op' | 'create' | 'update' | 'replace'; changes?: FieldChange[] } | undefined, state?: Record<string, unknown>): ReferenceSources => ({
  reads: new Map(state === undefined ? [[IP, { ok: true, observation: { exists: false } } as ReadResult]] : [[IP, read(state)]]),
  changes: new Map(change === undefined ? [] : [[IP, { action: change.action, changes: change.changes ?? [] }]]),
});
const attributes = { name: 'gw', env: { IP: '${cloud_floating_ip.edge.floating_ip_address}', URL: 'http://${cloud_floating_ip.edge.floating_ip_address}/' } };
const refs = [reference(['env', 'IP'], '${cloud_floating_ip.edge.floating_ip_address}'), reference(['env', 'URL'], 'http://${cloud_floating_ip.edge.floating_ip_address}/')];
const STATE = { floating_ip_id: 'f-1', floating_ip_address: '203.0.113.7', tags: [] };

describe('resolving references when planning', () => {
  it('resolves from a block that exists and keeps its field: a no-op, or an update of other fields', () => {
    for (const change of [{ action: 'no-op' as const }, { action: 'update' as const, changes: [{ path: ['tags', 'env'], op: 'add' as const, after: 'x' }] }]) {
      const resolved = resolveReferences(attributes, refs, sources(change, STATE));
      expect(resolved.attributes).toEqual({ name: 'gw', env: { IP: '203.0.113.7', URL: 'http://203.0.113.7/' } });
      expect(resolved.pending).toEqual([]);
    }
  });

  it('leaves (known after apply) and a note where the block is created, replaced, or changes the field', () => {
    const cases: ReferenceSources[] = [
      sources({ action: 'create' }),
      sources({ action: 'replace' }, STATE),
      sources({ action: 'update', changes: [{ path: ['floating_ip_address'], op: 'update', before: 'a', after: 'b' }] }, STATE),
    ];
    for (const s of cases) {
      const resolved = resolveReferences(attributes, refs, s);
      expect(resolved.attributes).toEqual({ name: 'gw', env: { IP: KNOWN_AFTER_APPLY, URL: KNOWN_AFTER_APPLY } });
      expect(resolved.pending.map((p) => p.template)).toEqual(refs.map((r) => r.template));
      expect(resolved.notes[0]).toBe('env.IP = ${cloud_floating_ip.edge.floating_ip_address} (known after apply)');
    }
    // The block's own attributes are never changed.
    expect(attributes.env.IP).toBe('${cloud_floating_ip.edge.floating_ip_address}');
  });

  it('reads a block being deleted as observed when the referring block is deleted too (it goes first), else leaves it unknown', () => {
    const deleting: ReferenceSources = { ...sources({ action: 'no-op' }, STATE), changes: new Map([[IP, { action: 'delete', changes: [] }]]), deleting: true };
    expect(resolveReferences(attributes, refs, deleting).attributes).toEqual({ name: 'gw', env: { IP: '203.0.113.7', URL: 'http://203.0.113.7/' } });
    const kept = resolveReferences(attributes, refs, { ...deleting, deleting: false });
    expect(kept.attributes).toEqual({ name: 'gw', env: { IP: KNOWN_AFTER_APPLY, URL: KNOWN_AFTER_APPLY } });
  });

  it('names a reference missing where its block exists, keeps the field and has no value for it (no-op or update of other fields)', () => {
    const none = { ...STATE, floating_ip_address: null };
    for (const change of [{ action: 'no-op' as const }, { action: 'update' as const, changes: [{ path: ['tags', 'env'], op: 'add' as const, after: 'x' }] }]) {
      const resolved = resolveReferences(attributes, refs, sources(change, none));
      expect(resolved.missing.map((m) => [m.reference.template, m.address, m.field])).toEqual(refs.map((r) => [r.template, IP, 'floating_ip_address']));
      expect(resolved.pending).toEqual([]);
    }
    // Changing the field gives it a value after apply: pending, not missing.
    const changing = resolveReferences(attributes, refs, sources({ action: 'update', changes: [{ path: ['floating_ip_address'], op: 'update', before: null, after: 'b' }] }, none));
    expect(changing.missing).toEqual([]);
    expect(changing.pending).toHaveLength(2);
  });

  it('keeps a whole reference typed, and writes it as text where the field is a string', () => {
    const app = 'fastedge_app.other';
    const s: ReferenceSources = { reads: new Map([[app, read({ app_id: 42, status: 1 })]]), changes: new Map() };
    const typed = resolveReferences(
      { status: '${fastedge_app.other.status}', env: { ID: '${fastedge_app.other.id}' } },
      [reference(['status'], '${fastedge_app.other.status}'), reference(['env', 'ID'], '${fastedge_app.other.id}', true)],
      s,
    );
    expect(typed.attributes).toEqual({ status: 1, env: { ID: '42' } });
    expect(resolvePending({ path: ['env', 'ID'], template: '${fastedge_app.other.id}', stringify: true }, () => ({ app_id: 7 }))).toEqual({ value: '7' });
    expect(resolvePending({ path: ['status'], template: '${fastedge_app.other.status}' }, () => undefined)).toBeUndefined();
  });

  it('marks every unknown value of after as Terraform after_unknown does, and round-trips templates with $${', () => {
    expect(unknownsOf({ app_id: KNOWN_AFTER_APPLY, name: 'gw', env: { IP: KNOWN_AFTER_APPLY, MODE: 'x' }, list: ['a', KNOWN_AFTER_APPLY] })).toEqual({
      app_id: true,
      env: { IP: true },
      list: [false, true],
    });
    expect(unknownsOf({ name: 'gw' })).toBeUndefined();
    const parts = ['a ${literal} ', { type: 'cloud_floating_ip', name: 'edge', field: 'id' }];
    expect(writeTemplate(parts)).toBe('a $${literal} ${cloud_floating_ip.edge.id}');
    expect(parseTemplate(writeTemplate(parts))).toEqual(parts);
    expect(parseTemplate('no reference')).toBeUndefined();
    expect(parseTemplate('${broken')).toBeUndefined();
  });
});

describe('templates: ${TYPE.NAME.FIELD} inside text', () => {
  const ip: ReferenceTarget = { type: 'cloud_floating_ip', name: 'edge', field: 'floating_ip_address' };
  const id: ReferenceTarget = { type: 'cloud_floating_ip', name: 'edge', field: 'id' };
  const values = new Map<ReferenceTarget, unknown>([
    [ip, '203.0.113.7'],
    [id, 42],
  ]);

  it('writes a reference followed by text as the whole text, never as the bare value', () => {
    expect(isWholeTemplate([ip, ':8080'])).toBe(false);
    expect(resolveTemplate([ip, ':8080'], (t) => values.get(t))).toEqual({ known: true, value: '203.0.113.7:8080' });
    expect(resolveTemplate(['http://', ip], (t) => values.get(t))).toEqual({ known: true, value: 'http://203.0.113.7' });
  });

  it('writes two references in one string each in its place', () => {
    expect(resolveTemplate([ip, ':', id, '/x'], (t) => values.get(t))).toEqual({ known: true, value: '203.0.113.7:42/x' });
    expect(resolveTemplate([id, ip], (t) => values.get(t))).toEqual({ known: true, value: '42203.0.113.7' });
  });

  it('keeps the type of a whole reference, and only of a whole one', () => {
    expect(isWholeTemplate([id])).toBe(true);
    expect(isWholeTemplate(['text'])).toBe(false);
    expect(isWholeTemplate([])).toBe(false);
    expect(isWholeTemplate([id, ip])).toBe(false);
    expect(resolveTemplate([id], (t) => values.get(t))).toEqual({ known: true, value: 42 });
  });

  it('is unknown as a whole while any of its references has no value (undefined or null)', () => {
    expect(resolveTemplate([ip, ':', id], (t) => (t === id ? undefined : values.get(t)))).toEqual({ known: false });
    expect(resolveTemplate(['x', id], () => null)).toEqual({ known: false });
  });

  it('reads TYPE.NAME.FIELD whole: a lower-case type, a name that may hold a dash, a field that may not', () => {
    expect(parseReference('dns_zone.main-2.name')).toEqual({ type: 'dns_zone', name: 'main-2', field: 'name' });
    expect(parseReference('cloud_floating_ip.Edge_1.floating_ip_address')).toEqual({ type: 'cloud_floating_ip', name: 'Edge_1', field: 'floating_ip_address' });
    for (const bad of [
      'Dns_zone.main.name',
      '1dns.main.name',
      'dns_zone.-main.name',
      'dns_zone.main.na-me',
      'dns_zone.main.1name',
      'dns_zone.main',
      'x dns_zone.main.name',
      'dns_zone.main.name x',
      'dns_zone.main.name.more',
    ])
      expect(parseReference(bad), bad).toBeUndefined();
    for (const good of ['${dns_zone.main.name}', '${cloud_floating_ip.edge-1.floating_ip_address}', '${a.b.c}']) expect(WHOLE_RESOURCE_REFERENCE.test(good), good).toBe(true);
    for (const bad of [
      'x${dns_zone.main.name}',
      '${dns_zone.main.name}x',
      '${Dns.main.name}',
      '${dns.main.1name}',
      '${dns_zone.-main.name}',
      '${dns_zone.main.na-me}',
      '${1a.b.c}',
      '${dns_zone.main}',
    ])
      expect(WHOLE_RESOURCE_REFERENCE.test(bad), bad).toBe(false);
  });

  it('reads back no template from text with an unterminated ${', () => {
    expect(parseTemplate('${dns_zone.main.name')).toBeUndefined();
    expect(parseTemplate('${dns_zone.main.name} and ${oops')).toBeUndefined();
    expect(parseTemplate('$${dns_zone.main.name')).toBeUndefined();
  });

  it('names the blocks a pending reference reads, and none of a corrupt one', () => {
    expect(pendingSources({ path: ['x'], template: '${cloud_floating_ip.a.id}:${fastedge_app.b.id}' })).toEqual(['cloud_floating_ip.a', 'fastedge_app.b']);
    expect(pendingSources({ path: ['x'], template: '${oops' })).toEqual([]);
    expect(resolvePending({ path: ['x'], template: 'corrupt ${' }, () => ({ floating_ip_id: 'f' }))).toBeUndefined();
  });

  it("reads a kind's readable field, and nothing from an unknown kind or field, or a null value", () => {
    expect(readReferencedValue(id, { floating_ip_id: 'f-1' })).toBe('f-1');
    expect(readReferencedValue({ ...id, type: 'no_such_kind' }, { floating_ip_id: 'f-1' })).toBeUndefined();
    expect(readReferencedValue({ ...id, field: 'no_such_field' }, { floating_ip_id: 'f-1' })).toBeUndefined();
    expect(readReferencedValue(id, { floating_ip_id: null })).toBeUndefined();
  });

  it('marks nothing unknown in scalars, null, or a list of known values', () => {
    expect(unknownsOf(null)).toBeUndefined();
    expect(unknownsOf('text')).toBeUndefined();
    expect(unknownsOf(['a', 'b'])).toBeUndefined();
    expect(unknownsOf(KNOWN_AFTER_APPLY)).toBe(true);
    expect(unknownsOf([KNOWN_AFTER_APPLY, 'b'])).toEqual([true, false]);
    expect(unknownsOf({ a: null, b: [null] })).toBeUndefined();
  });
});

describe('resolving references, every case of the referenced block', () => {
  const none = { ...STATE, floating_ip_address: null };
  const one = [reference(['env', 'IP'], '${cloud_floating_ip.edge.floating_ip_address}')];
  const withChange = (
    action: 'no-op' | 'create' | 'update' | 'replace' | 'delete',
    state: Record<string, unknown> | undefined,
    deleting?: boolean,
    changes: FieldChange[] = [],
  ): ReferenceSources => ({
    reads: new Map(state === undefined ? [] : [[IP, read(state)]]),
    changes: new Map([[IP, { action, changes }]]),
    ...(deleting === undefined ? {} : { deleting }),
  });
  const outcome = (s: ReferenceSources) => {
    const r = resolveReferences({ env: { IP: 'x' } }, one, s);
    return r.missing.length > 0 ? 'missing' : r.pending.length > 0 ? 'pending' : r.attributes.env;
  };

  it('is missing only where the block exists, keeps the field through apply and has no value for it', () => {
    expect(outcome(withChange('no-op', none))).toBe('missing');
    expect(outcome(withChange('delete', none, true))).toBe('missing');
    expect(outcome(withChange('update', none, undefined, [{ path: ['tags'], op: 'add', after: [] }]))).toBe('missing');
    // Apply makes or changes it: the value comes then.
    expect(outcome(withChange('create', none))).toBe('pending');
    expect(outcome(withChange('replace', none))).toBe('pending');
    expect(outcome(withChange('delete', none, false))).toBe('pending');
    expect(outcome(withChange('delete', none))).toBe('pending');
    // A block being deleted reads a block deleted after it as observed, but not one replaced.
    expect(outcome(withChange('replace', none, true))).toBe('pending');
    expect(outcome(withChange('create', none, true))).toBe('pending');
    expect(outcome(withChange('update', none, undefined, [{ path: ['floating_ip_address'], op: 'update', before: null, after: 'b' }]))).toBe('pending');
    expect(
      outcome(
        withChange('update', none, undefined, [
          { path: ['tags'], op: 'add', after: [] },
          { path: ['floating_ip_address'], op: 'update', before: null, after: 'b' },
        ]),
      ),
    ).toBe('pending');
  });

  it('is pending, never missing or resolved, where the block was not read, its read failed, or it does not exist yet', () => {
    const unread: ReferenceSources = { reads: new Map(), changes: new Map() };
    const failed: ReferenceSources = { reads: new Map([[IP, { ok: false, error: 'HTTP 500' } as unknown as ReadResult]]), changes: new Map() };
    const gone: ReferenceSources = { reads: new Map([[IP, { ok: true, observation: { exists: false } } as ReadResult]]), changes: new Map() };
    for (const s of [unread, failed, gone]) expect(outcome(s)).toBe('pending');
  });

  it('waits for apply where an update changes the referenced field among others', () => {
    const changes: FieldChange[] = [
      { path: ['tags'], op: 'add', after: [] },
      { path: ['floating_ip_address'], op: 'update', before: '203.0.113.7', after: '203.0.113.8' },
    ];
    expect(outcome(withChange('update', STATE, undefined, changes))).toBe('pending');
  });

  it('reads the observed value where the block keeps the field, also when another field of it changes', () => {
    expect(outcome(withChange('no-op', STATE))).toEqual({ IP: '203.0.113.7' });
    expect(outcome(withChange('delete', STATE, true))).toEqual({ IP: '203.0.113.7' });
    expect(
      outcome(
        withChange('update', STATE, undefined, [
          { path: ['tags'], op: 'add', after: [] },
          { path: ['status'], op: 'update', before: 'a', after: 'b' },
        ]),
      ),
    ).toEqual({
      IP: '203.0.113.7',
    });
  });

  it('keeps stringify on a pending reference, so apply writes its value as text', () => {
    const r = resolveReferences({ env: { ID: 'x' } }, [reference(['env', 'ID'], '${cloud_floating_ip.edge.id}', true)], withChange('create', undefined));
    expect(r.pending).toEqual([{ path: ['env', 'ID'], template: '${cloud_floating_ip.edge.id}', stringify: true }]);
    const plain = resolveReferences({ env: { ID: 'x' } }, [reference(['env', 'ID'], '${cloud_floating_ip.edge.id}')], withChange('create', undefined));
    expect(plain.pending).toEqual([{ path: ['env', 'ID'], template: '${cloud_floating_ip.edge.id}' }]);
  });
});

describe('checking attributes whose references apply resolved', () => {
  const planned = { name: 'gw', binary: 7, env: { IP: KNOWN_AFTER_APPLY } };

  it('refuses a resolved value the field does not take, naming the field and the value', () => {
    const message = checkResolvedAttributes('fastedge_app', { name: 'gw', binary: 7, env: { IP: 5 } }, planned, [{ path: ['env', 'IP'] }]);
    expect(message).toMatch(/^env\.IP: the resolved value 5 is not valid: /);
  });

  it('accepts valid attributes, and a problem the plan already had outside the references', () => {
    expect(checkResolvedAttributes('fastedge_app', { name: 'gw', binary: 7, env: { IP: '1.2.3.4' } }, planned, [{ path: ['env', 'IP'] }])).toBeUndefined();
    const plannedBad = { ...planned, status: 'not-a-status' };
    expect(checkResolvedAttributes('fastedge_app', { ...plannedBad, env: { IP: '1.2.3.4' } }, plannedBad, [{ path: ['env', 'IP'] }])).toBeUndefined();
  });

  it('refuses a problem the resolved value brings about outside its place, and one at a place the plan already had wrong', () => {
    // The same problem before and after, but at the reference's place: it is the resolved value's.
    const message = checkResolvedAttributes('fastedge_app', { name: 'gw', binary: 7, env: 5 }, { name: 'gw', binary: 7, env: 5 }, [{ path: ['env'] }]);
    expect(message).toMatch(/^env: the resolved value 5 is not valid: /);
    // Two references: an issue at either place is the reference's.
    const two = checkResolvedAttributes('fastedge_app', { name: 'gw', binary: 7, env: { A: 'ok', B: 5 } }, planned, [{ path: ['env', 'A'] }, { path: ['env', 'B'] }]);
    expect(two).toMatch(/^env\.B: the resolved value 5 is not valid: /);
    // The same problem before and after at the place of one of two references: still the reference's.
    const atSecond = checkResolvedAttributes('fastedge_app', { name: 'gw', binary: 7, env: 5 }, { name: 'gw', binary: 7, env: 5 }, [{ path: ['name'] }, { path: ['env'] }]);
    expect(atSecond).toMatch(/^env: the resolved value 5 is not valid: /);
  });

  it("places a reference by its whole path: a problem the plan had beside it, under the same map, is not the reference's", () => {
    const had = { name: 'gw', binary: 7, env: { A: KNOWN_AFTER_APPLY, B: 5 } };
    expect(checkResolvedAttributes('fastedge_app', { ...had, env: { A: 'ok', B: 5 } }, had, [{ path: ['env', 'A'] }])).toBeUndefined();
  });

  it('tells a problem the plan had from a new one outside the references by its place and message', () => {
    // The plan had a bad status; the resolved attributes also bring a bad binary, which is new.
    const had = { name: 'gw', binary: 7, status: 'not-a-status', env: { IP: KNOWN_AFTER_APPLY } };
    const message = checkResolvedAttributes('fastedge_app', { ...had, binary: 'seven', env: { IP: '1.2.3.4' } }, had, [{ path: ['env', 'IP'] }]);
    expect(message).toMatch(/^binary: the resolved value "seven" is not valid: /);
  });
});
