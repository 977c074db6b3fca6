import { describe, expect, it } from 'vitest';
import { parseReference, parseTemplate, referenceAddress, WHOLE_RESOURCE_REFERENCE, writeReference, writeTemplate } from '../../../src/model/references.js';
import { parseStackReference } from '../../../src/model/stack-reference.js';

describe('${stack:NAME/TYPE.BLOCK.FIELD}', () => {
  it('parses the other stack, the block and the field, and writes them back as written', () => {
    const target = parseReference('stack:net-prod.eu_1/cloud_floating_ip.edge.floating_ip_address');
    expect(target).toEqual({ stack: 'net-prod.eu_1', type: 'cloud_floating_ip', name: 'edge', field: 'floating_ip_address' });
    expect(writeReference(target!)).toBe('${stack:net-prod.eu_1/cloud_floating_ip.edge.floating_ip_address}');
    // Its read is recorded under an address no block of a stack can have.
    expect(referenceAddress(target!)).toBe('stack:net-prod.eu_1/cloud_floating_ip.edge');
    expect(referenceAddress(parseReference('cloud_floating_ip.edge.id')!)).toBe('cloud_floating_ip.edge');
  });

  it('refuses what is not a stack name, an address and a field', () => {
    for (const inner of [
      'stack:/cloud_floating_ip.edge.id',
      'stack:net/edge.id',
      'stack:-net/cloud_floating_ip.edge.id',
      'stack:net/cloud_floating_ip.edge',
      `stack:${'n'.repeat(64)}/a.b.c`,
    ]) {
      expect(parseStackReference(inner), inner).toBeUndefined();
      expect(parseReference(inner), inner).toBeUndefined();
    }
  });

  it('round-trips through a template with literal text and local references', () => {
    const text = 'http://${stack:net/cloud_floating_ip.edge.floating_ip_address}:$${port}/${cloud_floating_ip.own.id}';
    const parts = parseTemplate(text)!;
    expect(parts).toHaveLength(4);
    expect(writeTemplate(parts)).toBe(text);
  });

  it('is a whole reference for the JSON Schema (it may stand in a number field)', () => {
    expect(WHOLE_RESOURCE_REFERENCE.test('${stack:net/cloud_floating_ip.edge.id}')).toBe(true);
    expect(WHOLE_RESOURCE_REFERENCE.test('${cloud_floating_ip.edge.id}')).toBe(true);
    expect(WHOLE_RESOURCE_REFERENCE.test('x${stack:net/cloud_floating_ip.edge.id}')).toBe(false);
  });
});
