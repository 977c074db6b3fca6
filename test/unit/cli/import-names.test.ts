import { describe, expect, it } from 'vitest';
import { keepNamed, resolveImportRequest, unmatchedNames } from '../../../src/cli/import.js';
import type { ImportedResource, KindImporter } from '../../../src/kinds/kind-list.js';
import { providers } from '../../../src/kinds/providers.js';
import { RESOURCE_TYPES, type ResourceType } from '../../../src/kinds/registry.js';

const importers: Partial<Record<ResourceType, KindImporter>> = Object.fromEntries(
  RESOURCE_TYPES.flatMap((t) => (providers.resources[t].import ? [[t, providers.resources[t].import!]] : [])),
);
const none = { projectId: [], regionId: [], resellerId: [], videoId: [], all: false };

const group = (id: number, name: string): ImportedResource => ({ type: 'cdn_origin_group', name, id: String(id), source: 'GET', attributes: { origin_group_id: id, name } });
const resource = (id: number, cname: string, originGroup: number): ImportedResource => ({
  type: 'cdn_resource',
  name: cname,
  id: String(id),
  source: 'GET',
  attributes: { resource_id: id, cname, origin_group: originGroup },
  refersTo: { origin_group: 'cdn_origin_group' },
});
const rule = (id: number, resourceId: number, originGroup: number | null = null): ImportedResource => ({
  type: 'cdn_rule',
  name: `r${id}`,
  id: String(id),
  source: 'GET',
  attributes: { rule_id: id, resource_id: resourceId, name: `r${id}`, origin_group: originGroup },
  refersTo: { resource_id: 'cdn_resource', origin_group: 'cdn_origin_group' },
});
const FOUND = [
  group(10, 'shared'),
  group(11, 'other'),
  group(12, 'rule-only'),
  group(13, 'unused'),
  resource(1, 'a.example.com', 10),
  resource(2, 'b.example.com', 10),
  resource(3, 'c.example.com', 11),
  rule(5, 1, 12),
  rule(6, 2),
  rule(7, 3),
];

describe('import cdn_resource: --cname and what a resource brings', () => {
  it('--cname names cdn_resource and brings origin groups and rules; --name is the same for that kind', () => {
    const byCname = resolveImportRequest({ ...none, kind: 'cdn_resource', cname: ['A.example.com'] }, importers);
    expect(byCname.kinds.map((k) => k.type)).toEqual(['cdn_resource', 'cdn_origin_group', 'cdn_rule']);
    expect(byCname).toMatchObject({ names: ['A.example.com'], nameFlag: '--cname', named: 'cdn_resource' });
    expect(resolveImportRequest({ ...none, kind: 'cdn_resource', name: ['a.example.com'] }, importers)).toMatchObject({ names: ['a.example.com'], nameFlag: '--name' });
  });

  it('keeps the named resources, their rules, and each origin group a kept resource or rule uses, once', () => {
    const request = resolveImportRequest({ ...none, kind: 'cdn_resource', cname: ['A.example.com', 'b.example.com'] }, importers);
    expect(keepNamed(FOUND, request).map((r) => `${r.type}/${r.id}`)).toEqual([
      'cdn_origin_group/10',
      'cdn_origin_group/12',
      'cdn_resource/1',
      'cdn_resource/2',
      'cdn_rule/5',
      'cdn_rule/6',
    ]);
    expect(unmatchedNames(FOUND, request)).toEqual([]);
  });

  it('without names keeps every resource and what they use, but not an origin group nothing imported uses', () => {
    const request = resolveImportRequest({ ...none, kind: 'cdn_resource' }, importers);
    expect(keepNamed(FOUND, request).map((r) => `${r.type}/${r.id}`)).not.toContain('cdn_origin_group/13');
    expect(keepNamed(FOUND, request)).toHaveLength(FOUND.length - 1);
    // --all keeps everything.
    expect(keepNamed(FOUND, resolveImportRequest({ ...none, all: true, resellerId: ['7'] }, importers))).toHaveLength(FOUND.length);
  });

  it('names the names that match nothing', () => {
    const request = resolveImportRequest({ ...none, kind: 'cdn_resource', cname: ['a.example.com', 'x.example.com'] }, importers);
    expect(unmatchedNames(FOUND, request)).toEqual(['x.example.com']);
  });

  it('refuses --cname for a kind named otherwise, and with --all', () => {
    expect(() => resolveImportRequest({ ...none, kind: 'dns_zone', cname: ['example.com'] }, importers)).toThrow(
      '--cname applies to cdn_resource (named by cname); dns_zone is named with --name NAME',
    );
    expect(() => resolveImportRequest({ ...none, all: true, cname: ['example.com'] }, importers)).toThrow('--cname applies to one KIND, not to --all');
  });
});
