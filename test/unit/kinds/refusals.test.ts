import { describe, expect, it } from 'vitest';
import { cidrsOverlap } from '../../../src/kinds/cloud-subnet/schema.js';
import { isWrittenOut, notAmong } from '../../../src/kinds/refusals.js';
import { KNOWN_AFTER_APPLY } from '../../../src/plan/types.js';

const among = { field: 'ssh_key_name', noun: 'SSH key', where: 'in project 1' };

describe('notAmong: a value none of a list has', () => {
  it('is null for a listed value and for a value known only after apply', () => {
    expect(notAmong('deploy', [{ key: 'deploy' }], among)).toBeNull();
    expect(notAmong(KNOWN_AFTER_APPLY, [{ key: 'deploy' }], among)).toBeNull();
    expect(notAmong(undefined, [{ key: 'deploy' }], among)).toBeNull();
  });

  it('is an error at the field with a did-you-mean and the list (labels beside keys), cut after ten', () => {
    const keys = Array.from({ length: 12 }, (_, i) => ({ key: `key-${i}` }));
    const problem = notAmong('deplyo', [{ key: 'deploy', label: 'created by this stack' }, ...keys], { ...among, instead: 'Declare it.' })!;
    expect(problem.field).toBe('ssh_key_name');
    expect(problem.summary).toBe('ssh_key_name "deplyo" names no SSH key in project 1; did you mean "deploy"?');
    expect(problem.detail).toBe(
      'SSH keys in project 1: deploy (created by this stack), key-0, key-1, key-2, key-3, key-4, key-5, key-6, key-7, key-8, and 3 more. Declare it. The platform would refuse the create; nothing was sent.',
    );
  });

  it('says there is none when the list is empty, and offers no far-fetched match', () => {
    expect(notAmong('x', [], among)!.detail).toBe('There is no SSH key in project 1. The platform would refuse the create; nothing was sent.');
    expect(notAmong('completely-different', [{ key: 'deploy' }], among)!.summary).toBe('ssh_key_name "completely-different" names no SSH key in project 1');
  });
});

describe('isWrittenOut: a value the read can check (no reference in it)', () => {
  it.each([
    ['deploy', true],
    ['${cloud_ssh_key.k.name}', false],
    ['prefix-${cloud_ssh_key.k.name}', false],
    [undefined, false],
  ])('%s → %s', (value, expected) => expect(isWrittenOut(value)).toBe(expected));
});

describe('cidrsOverlap', () => {
  it.each([
    ['10.0.0.0/16', '10.0.8.0/24', true],
    ['10.0.8.0/24', '10.0.0.0/16', true],
    ['10.0.0.0/24', '10.0.1.0/24', false],
    ['10.0.0.0/24', '10.0.0.0/24', true],
    ['fd00::/64', '10.0.0.0/8', false],
    ['fd00::/48', 'fd00:0:0:1::/64', true],
    ['not a cidr', '10.0.0.0/8', false],
  ])('%s and %s → %s', (a, b, expected) => expect(cidrsOverlap(a, b)).toBe(expected));
});
