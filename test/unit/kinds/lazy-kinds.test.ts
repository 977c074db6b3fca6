import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/** The kinds whose shape was built, in order (defineKind wrapped to record it). */
const built: string[] = [];

const KIND_SPEC = '../../../src/kinds/kind-spec.js';
const dir = mkdtempSync(join(tmpdir(), 'edgeform-lazy-kinds-'));

// Test files share their worker's module cache (vitest.config.ts): this one loads src/ afresh,
// with defineKind wrapped, and leaves a fresh cache without the wrapper behind it.
beforeAll(() => {
  vi.resetModules();
  vi.doMock(KIND_SPEC, async (importOriginal) => {
    const original = await importOriginal<typeof import('../../../src/kinds/kind-spec.js')>();
    const defineKind: typeof original.defineKind = (spec) =>
      original.defineKind({
        ...spec,
        shape: () => {
          built.push(spec.type);
          return spec.shape();
        },
      });
    return { ...original, defineKind };
  });
});

afterAll(() => {
  vi.doUnmock(KIND_SPEC);
  vi.resetModules();
  rmSync(dir, { recursive: true, force: true });
});

describe("kinds' schemas are built when first used (issue 33: start only what the stack uses)", () => {
  it('loading the registry builds none; validating a stack builds the kinds it uses, each once', async () => {
    const { RESOURCE_TYPES, RESOURCE_KINDS } = await import('../../../src/kinds/registry.js');
    expect(RESOURCE_TYPES.length).toBeGreaterThan(10);
    expect(built).toEqual([]);

    const { loadStack } = await import('../../../src/config/load-stack.js');
    const file = join(dir, 'stack.yaml');
    writeFileSync(
      file,
      [
        'version: 1',
        'defaults: { project_id: 1, region_id: 76 }',
        'resources:',
        '  ip: { type: cloud_floating_ip, floating_ip_id: 726ecfcc-7fd0-4e30-a86e-7892524aa483, tags: { env: prod } }',
        '  ip2: { type: cloud_floating_ip, floating_ip_id: 826ecfcc-7fd0-4e30-a86e-7892524aa483 }',
        '  www: { type: dns_rrset, zone: example.com, name: www, record_type: A, resource_records: [{ content: [192.0.2.1] }] }',
      ].join('\n'),
    );
    const { stack, diagnostics } = await loadStack(file, {});
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(stack?.resources).toHaveLength(3);
    expect(built).toEqual(['cloud_floating_ip', 'dns_rrset']);

    // Reading a kind's schema again builds nothing more; a kind read for the first time is built then.
    expect(RESOURCE_KINDS.cloud_floating_ip.schema).toBe(RESOURCE_KINDS.cloud_floating_ip.schema);
    expect(Object.keys(RESOURCE_KINDS.cdn_resource.shape.shape)).toContain('cname');
    expect(built).toEqual(['cloud_floating_ip', 'dns_rrset', 'cdn_resource']);
  });
});
