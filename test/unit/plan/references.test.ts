import { describe, expect, it } from 'vitest';
import type { BlockReference } from '../../../src/config/types.js';
import type { ReadResult } from '../../../src/kinds/provider.js';
import { parseTemplate, writeTemplate } from '../../../src/model/references.js';
import { resolvePending, resolveReferences, unknownsOf, type ReferenceSources } from '../../../src/plan/references.js';
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
