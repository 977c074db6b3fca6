import { describe, expect, it } from 'vitest';
import { declaredFields, diffDeclared } from '../../../src/kinds/declared-fields.js';

describe('diffDeclared', () => {
  const state = { name: 'web', status: 1, comment: '', env: { A: '1', B: '2' } };

  it('compares only declared fields: a field the block leaves out is not managed', () => {
    expect(diffDeclared({ name: 'web' }, state, ['name', 'status', 'comment'], ['env'])).toEqual({ changes: [], changed: [], unchanged_elements: {} });
  });

  it('reports a differing scalar as an update from the live value, and an absent live value as null', () => {
    const diff = diffDeclared({ status: 2, logo: 'x' }, state, ['status', 'logo']);
    expect(diff.changes).toEqual([
      { path: ['status'], op: 'update', before: 1, after: 2 },
      { path: ['logo'], op: 'update', before: null, after: 'x' },
    ]);
    expect(diff.changed).toEqual(['status', 'logo']);
  });

  it('diffs a declared map per key as the whole map: added, changed and unlisted keys, counting the equal ones', () => {
    const diff = diffDeclared({ env: { A: '1', B: '3', C: '4' } }, { env: { A: '1', B: '2', D: '5' } }, [], ['env']);
    expect(diff.changes).toEqual([
      { path: ['env', 'B'], op: 'update', before: '2', after: '3' },
      { path: ['env', 'C'], op: 'add', after: '4' },
      { path: ['env', 'D'], op: 'remove', before: '5' },
    ]);
    expect(diff).toMatchObject({ changed: ['env'], unchanged_elements: { env: 1 } });
  });

  it('treats a map the platform does not show as empty', () => {
    expect(diffDeclared({ env: {} }, {}, [], ['env'])).toEqual({ changes: [], changed: [], unchanged_elements: { env: 0 } });
  });
});

describe('declaredFields', () => {
  it('keeps the declared fields among those given, in their order', () => {
    expect(declaredFields({ b: 2, a: 1, c: undefined, d: 4 }, ['a', 'b', 'c'])).toEqual({ a: 1, b: 2 });
  });
});
