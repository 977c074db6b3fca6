import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatStackText } from '../../../src/config/format-stack.js';

const format = (text: string) => {
  const result = formatStackText(text);
  if (!result.ok) throw new Error(`not YAML: ${result.error.message}`);
  return result;
};

describe('formatStackText', () => {
  it('orders the top level version, provider, defaults, resources, checks, and each block type, identity, schema order, depends_on last', () => {
    const text = [
      'checks:',
      '  subs:',
      '    languages: [eng, ger]',
      '    type: streaming_video_subtitles',
      '    video_id: 9876',
      'resources:',
      '  web_ip:',
      '    depends_on: [cloud_instance.vm]',
      '    tags: { env: prod }',
      '    region_id: 76',
      '    floating_ip_id: 726ecfcc-7fd0-4e30-a86e-7892524aa483',
      '    type: cloud_floating_ip',
      'defaults: { project_id: 1 }',
      'version: 1',
      '',
    ].join('\n');
    expect(format(text)).toEqual({
      ok: true,
      changed: true,
      text: [
        'version: 1',
        'defaults: { project_id: 1 }',
        'resources:',
        '  web_ip:',
        '    type: cloud_floating_ip',
        '    floating_ip_id: 726ecfcc-7fd0-4e30-a86e-7892524aa483',
        '    region_id: 76',
        '    tags: { env: prod }',
        '    depends_on: [cloud_instance.vm]',
        'checks:',
        '  subs:',
        '    type: streaming_video_subtitles',
        '    video_id: 9876',
        '    languages: [eng, ger]',
        '',
      ].join('\n'),
    });
  });

  it('keeps the stack settings name, renamed_from and prune after version and before provider, never after resources', () => {
    const text = [
      'version: 1',
      'defaults: { project_id: 1 }',
      'provider: { base_url: https://api.gcore.com }',
      'prune: true',
      'resources: {}',
      'renamed_from: old-site',
      'name: site',
      '',
    ].join('\n');
    expect(format(text).text).toBe(
      [
        'version: 1',
        'name: site',
        'renamed_from: old-site',
        'prune: true',
        'provider: { base_url: https://api.gcore.com }',
        'defaults: { project_id: 1 }',
        'resources: {}',
        '',
      ].join('\n'),
    );
    const canonical = ['version: 1', 'name: site', 'prune: true', 'resources:', '  ip: { type: cloud_floating_ip }', ''].join('\n');
    expect(format(canonical)).toEqual({ ok: true, changed: false, text: canonical });
  });

  it('keeps comments with the keys they sit above or beside, and the file header on top', () => {
    const text = [
      '# yaml-language-server: $schema=./edgeform.schema.json',
      'resources:                 # what we manage',
      '  vm:',
      '    # the flavor to resize to',
      '    flavor_id: g2-standard-4-8   # bigger',
      '    instance_id: a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11',
      '    type: cloud_instance',
      '# the format version',
      'version: 1',
      '',
    ].join('\n');
    expect(format(text).text).toBe(
      [
        '# yaml-language-server: $schema=./edgeform.schema.json',
        '# the format version',
        'version: 1',
        'resources:                 # what we manage',
        '  vm:',
        '    type: cloud_instance',
        '    instance_id: a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11',
        '    # the flavor to resize to',
        '    flavor_id: g2-standard-4-8   # bigger',
        '',
      ].join('\n'),
    );
  });

  it('returns a file already in canonical order byte for byte, unchanged', () => {
    const text = 'version: 1\nresources:\n  ip:     # aligned\n    type: cloud_floating_ip\n    floating_ip_id: "726ecfcc-7fd0-4e30-a86e-7892524aa483"\n';
    expect(format(text)).toEqual({ ok: true, text, changed: false });
  });

  it('leaves keys of unknown kinds after the known order, in their own order', () => {
    const text = 'resources:\n  x:\n    zeta: 1\n    depends_on: []\n    alpha: 2\n    type: no_such_kind\n';
    expect(format(text).text).toBe('resources:\n  x:\n    type: no_such_kind\n    zeta: 1\n    alpha: 2\n    depends_on: []\n');
  });

  it('reports a file that is not YAML with its line and column', () => {
    expect(formatStackText('version: 1\nresources: [\n')).toMatchObject({ ok: false, error: { line: expect.any(Number), column: expect.any(Number) } });
  });

  it('is idempotent and changes only the order: the same data, every key where the order puts it (property)', () => {
    const block = fc.record({
      comment: fc.option(fc.constantFrom('# a note', '# another'), { nil: undefined }),
      keys: fc.shuffledSubarray(
        ['type: cloud_instance', 'instance_id: a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11', 'flavor_id: g2   # c', 'depends_on: [x.y]', 'project_id: 1', 'zz: 3'],
        {
          minLength: 1,
        },
      ),
    });
    const stack = fc.record({
      top: fc.shuffledSubarray(['version', 'defaults', 'resources', 'provider'], { minLength: 1 }),
      blocks: fc.array(block, { minLength: 1, maxLength: 4 }),
      newlineAtEnd: fc.boolean(),
    });
    fc.assert(
      fc.property(stack, ({ top, blocks, newlineAtEnd }) => {
        const section = (name: string): string[] => {
          if (name === 'version') return ['version: 1'];
          if (name === 'defaults') return ['defaults:', '  region_id: 76  # region'];
          if (name === 'provider') return ['provider:', '  base_url: https://api.gcore.com'];
          return ['resources:', ...blocks.flatMap((b, i) => [...(b.comment ? [`  ${b.comment}`] : []), `  r${i}:`, ...b.keys.map((k) => `    ${k}`)])];
        };
        const text = top.flatMap(section).join('\n') + (newlineAtEnd ? '\n' : '');
        const once = format(text).text;
        expect(format(once)).toEqual({ ok: true, text: once, changed: false });
        expect(parse(once)).toEqual(parse(text));
        expect(once.split('\n').sort()).toEqual(text.split('\n').sort());
        const order = Object.keys(parse(once) as object);
        expect(order).toEqual(['version', 'provider', 'defaults', 'resources'].filter((k) => order.includes(k)));
        for (const b of Object.values((parse(once) as { resources?: Record<string, Record<string, unknown>> }).resources ?? {})) {
          const keys = Object.keys(b);
          if (keys.includes('type')) expect(keys[0]).toBe('type');
          if (keys.includes('depends_on')) expect(keys.at(-1)).toBe('depends_on');
        }
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a key repeated in its map, at the repeat', () => {
    expect(formatStackText('version: 1\nresources:\n  a: { type: fastedge_app }\n  b: { type: fastedge_app }\n  a: { type: fastedge_app }\n')).toEqual({
      ok: false,
      error: { line: 5, column: 3, message: 'Map keys must be unique' },
    });
  });
});
