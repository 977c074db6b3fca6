import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { formatStackText } from '../../../src/config/format-stack.js';
import { loadStack } from '../../../src/config/load-stack.js';
import { readSourceFile } from '../../../src/config/source-tree.js';
import { NAME_PATTERN } from '../../../src/config/validate-block.js';
import { MAX_BLOCK_NAME, sanitizeBlockName, uniqueBlockNames, writeStack, type DraftBlock, type StackDraft } from '../../../src/config/write-stack.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { anyString as codePointString } from '../../helpers/code-points.js';

const FIP = '726ecfcc-7fd0-4e30-a86e-7892524aa483';
const FIP2 = '5f0c3a1e-2b7d-4c9a-8e61-0d2b3c4f5a6b';
const VM = 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11';

async function load(text: string) {
  const dir = writeStackFiles({ 'stack.yaml': text });
  return loadStack(join(dir, 'stack.yaml'), {});
}

/** The text writeStack wrote. */
const written = (draft: StackDraft, env: Record<string, string> = {}): string => {
  const result: unknown = writeStack(draft, env);
  return typeof result === 'string' ? result : (result as { text: string }).text;
};

const fip = (id: string, project: number, region: number, tags: Record<string, string>, name = 'ip_203.0.113.10'): DraftBlock => ({
  type: 'cloud_floating_ip',
  name,
  attributes: { project_id: project, region_id: region, floating_ip_id: id, tags },
  comment: `imported from GET /cloud/v1/floatingips/${project}/${region}: id "${id}"`,
});

describe('writeStack', () => {
  it('writes version, defaults for one project and region, and each block with its comment, fields in schema order', () => {
    const text = written({
      blocks: [
        fip(FIP, 1, 76, { env: 'prod' }),
        {
          type: 'cloud_instance',
          name: 'web-1',
          attributes: { flavor_id: 'g2-standard-2-4', instance_id: VM, region_id: 76, project_id: 1 },
          comment: 'imported from GET /cloud/v1/instances/1/76: id "a7e7…", name "web-1"',
        },
        { type: 'fastedge_app', name: 'legacy-app', attributes: { app_id: 1234 }, comment: 'imported from GET /fastedge/v1/apps: id 1234' },
      ],
      header: ['Imported by edgeform import'],
    });
    expect(text).toBe(`# yaml-language-server: $schema=./edgeform.schema.json
# Imported by edgeform import

version: 1
defaults:
  project_id: 1
  region_id: 76
resources:
  # imported from GET /cloud/v1/floatingips/1/76: id "${FIP}"
  ip_203_0_113_10:
    type: cloud_floating_ip
    floating_ip_id: ${FIP}
    tags:
      env: prod

  # imported from GET /cloud/v1/instances/1/76: id "a7e7…", name "web-1"
  web-1:
    type: cloud_instance
    instance_id: ${VM}
    flavor_id: g2-standard-2-4

  # imported from GET /fastedge/v1/apps: id 1234
  legacy-app:
    type: fastedge_app
    app_id: 1234
`);
  });

  it('keeps project_id and region_id in each block when the blocks disagree, and defaults only the one they share', async () => {
    const text = written({ blocks: [fip(FIP, 1, 76, {}), fip(FIP2, 2, 76, {}, 'other')] });
    expect(text).toContain('defaults:\n  region_id: 76\nresources:\n');
    const { stack, diagnostics } = await load(text);
    expect(diagnostics).toEqual([]);
    expect(stack!.resources.map((r) => [(r.attributes as Record<string, unknown>).project_id, (r.attributes as Record<string, unknown>).region_id])).toEqual([
      [1, 76],
      [2, 76],
    ]);
  });

  it('writes provider.base_url only when given, and an empty tags map as {}', () => {
    expect(written({ blocks: [fip(FIP, 1, 76, {})] })).not.toContain('provider');
    const text = written({ blocks: [fip(FIP, 1, 76, {})], baseUrl: 'http://127.0.0.1:8787' });
    expect(text).toContain('provider:\n  base_url: http://127.0.0.1:8787\n');
    expect(text).toContain('    tags: {}\n');
  });

  it('writes an empty stack as resources: {}, which loads (with the warning that it is empty)', async () => {
    const text = written({ blocks: [] });
    expect(text).toBe('# yaml-language-server: $schema=./edgeform.schema.json\n\nversion: 1\nresources: {}\n');
    expect((await load(text)).diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'empty-stack']]);
  });

  it('reads back to the same attributes, whatever the tag keys and values hold (quotes, YAML words, controls, bidi, non-ASCII)', async () => {
    const value = codePointString({ minLength: 1, maxLength: 20 }).filter((s) => /^\S(.*\S)?$/su.test(s) && !/[\t\n\r]/.test(s));
    // "__proto__" is left out: the stack loader drops such a tag key today (a loader bug, reported; not the writer's).
    const key = codePointString({ minLength: 1, maxLength: 12 }).filter((s) => /^[^\s=]+$/u.test(s) && s !== '__proto__');
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 4 }), async (tags) => {
        const text = written({ blocks: [fip(FIP, 1, 76, tags)] });
        expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
        const { stack, diagnostics } = await load(text);
        expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect((stack!.resources[0]!.attributes as Record<string, unknown>).tags).toEqual(tags);
      }),
      { numRuns: 100 },
    );
  });

  const subtitle = (name: string): DraftBlock => ({
    type: 'streaming_video_subtitle',
    name: 'video_9876_eng',
    attributes: { subtitle_id: 1000, video_id: 9876, language: 'eng', name, vtt: 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nWelcome.\n' },
    comment: 'imported from GET /streaming/videos/9876/subtitles: id "1000"',
  });

  it('writes printable text over several lines (WebVTT) as a literal block, line for line', () => {
    expect(written({ blocks: [subtitle('English')] })).toContain('    vtt: |\n      WEBVTT\n\n      1\n      00:00:01.000 --> 00:00:04.000\n      Welcome.\n');
  });

  it('reads back to the same text over several lines, whatever its spaces, blank lines and line ends', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '-', '>', ':', '#', '|', '"', "'", '\t', '\r'), minLength: 1, maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(text, async (name) => {
        const text2 = written({ blocks: [subtitle(name)] });
        const { stack, diagnostics } = await load(text2);
        expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect((stack!.resources[0]!.attributes as Record<string, unknown>).name).toBe(name);
      }),
      { numRuns: 400, examples: [[' \n'], ['a\n '], ['\n\n'], ['a\n\n\n'], ['  a\nb']] },
    );
  });

  it('writes every ${ of a live string as $${: the stack reads back the literal text, whatever the environment holds', async () => {
    const live = { token: '${env:SECRET_TOKEN}', price: '$${x} and $$${y}', end: 'a$', brace: '${' };
    const text = written({ blocks: [fip(FIP, 1, 76, live)] });
    expect(text).toContain('token: "$${env:SECRET_TOKEN}"');
    const dir = writeStackFiles({ 'stack.yaml': text });
    const { stack, diagnostics } = await loadStack(join(dir, 'stack.yaml'), { SECRET_TOKEN: 'ci-token-0000' });
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect((stack!.resources[0]!.attributes as Record<string, unknown>).tags).toEqual(live);
    expect(JSON.stringify(stack)).not.toContain('ci-token-0000');
  });

  it('quotes keys and values a YAML reader would take for something else, and leaves plain words plain', () => {
    const tags = {
      '<<': 'merge',
      '~': '~',
      null: 'null',
      yes: 'yes',
      on: 'Off',
      ' lead': 'trail ',
      'a\nb': 'x\ny',
      '#c': '#c',
      'k: v': 'a: b',
      'x #y': '1.5',
      日本: 'é',
      '0x1F': '1:20',
      long: 'l'.repeat(200),
      plain: 'web-1.example.com',
    };
    const text = written({ blocks: [fip(FIP, 1, 76, tags)] });
    for (const quoted of [
      '"<<": merge',
      '"~": "~"',
      '"null": "null"',
      '"yes": "yes"',
      '"on": "Off"',
      '" lead": "trail "',
      '"a\\nb": |-\n        x\n        y',
      '"#c": "#c"',
      '"k: v": "a: b"',
      '"x #y": "1.5"',
      '"日本": "é"',
      '"0x1F": "1:20"',
      `long: "${'l'.repeat(200)}"`,
      'plain: web-1.example.com',
    ]) {
      expect(text).toContain(`      ${quoted}\n`);
    }
  });

  /**
   * Each string of a written block as the stack reader (js-yaml) reads it back; the yaml library
   * that wrote it (and that fmt reads with) must parse it without an error too.
   */
  const readBoth = (text: string) => {
    expect(parseDocument(text).errors).toEqual([]);
    const file = readSourceFile('s.yaml', text, {});
    return [
      {
        errors: file.diagnostics.filter((d) => d.severity === 'error'),
        blocks: file.root?.entries?.get('resources')?.value as Record<string, Record<string, unknown>> | undefined,
      },
    ];
  };

  /** Any string: any code point of Unicode, YAML's words and indicators, interpolations, spaces and line breaks at the edges, long runs. */
  const anyString = fc.oneof(
    codePointString({ maxLength: 30 }),
    fc.string({ unit: 'binary-ascii', maxLength: 30 }),
    fc.string({
      unit: fc.constantFrom(
        '$',
        '{',
        '}',
        'env:',
        'A',
        ':',
        ' ',
        '#',
        '-',
        '\n',
        '"',
        "'",
        '~',
        '<<',
        '!',
        '&',
        '*',
        '0',
        '1',
        '.',
        'e',
        'x',
        '\t',
        '\r',
        '\u2028',
        '\ufeff',
        '\u202e',
      ),
      maxLength: 20,
    }),
    fc.constantFrom(
      '~',
      'null',
      'Null',
      'yes',
      'NO',
      'on',
      'y',
      'true',
      '<<',
      '=',
      '.inf',
      '-.5',
      '0o17',
      '0x1F',
      '1_000',
      '1:20',
      '2001-12-14',
      '1e3',
      '---',
      '...',
      '-',
      '?',
      '',
      ' ',
      '${env:SECRET_TOKEN}',
      '$${x}',
      'a'.repeat(1100),
    ),
  );

  it('writes any strings as keys and values so that both readers read back exactly them (a law, over all of Unicode)', () => {
    // The readers refuse what no stack may hold (a lone surrogate, "__proto__", a key naming a credential): those blocks are left out, never written otherwise.
    fc.assert(
      fc.property(fc.dictionary(anyString, anyString, { maxKeys: 5 }), anyString, (tags, comment) => {
        const result = writeStack({
          blocks: [
            { ...fip(FIP, 1, 76, tags), name: comment },
            { type: 'fastedge_app', name: 'app', attributes: { app_id: 1, name: comment, comment }, comment },
          ],
        });
        expect(result.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ufeff]/);
        for (const read of readBoth(result.text)) {
          expect(read.errors).toEqual([]);
          const blocks = Object.values(read.blocks ?? {});
          const expected = [
            { type: 'cloud_floating_ip', floating_ip_id: FIP, tags },
            { type: 'fastedge_app', app_id: 1, name: comment, comment },
          ].filter((_, i) => !result.leftOut.some((l) => l.index === i));
          expect(blocks).toEqual(expected);
        }
        const refusable = (s: string) => /[\ud800-\udfff]/.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')) || s === '__proto__';
        if (![...Object.keys(tags), ...Object.values(tags), comment].some(refusable)) expect(result.leftOut).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('leaves out, with why, a block that would not read back (a lone surrogate), and writes the others', () => {
    const result = writeStack({ blocks: [fip(FIP, 1, 76, { bad: 'a\ud800b' }), fip(FIP2, 1, 76, { good: 'yes' }, 'other')] });
    expect(result.leftOut).toEqual([{ index: 0, reason: expect.stringContaining('unpaired UTF-16 surrogate') }]);
    expect(result.text).toContain(FIP2);
    expect(result.text).not.toContain(FIP);
  });

  it('writes a refersTo value equal to the id of a block of that kind in the stack as ${TYPE.NAME.id}, which reads back, loads valid and keeps its type', async () => {
    // The mapping is declared on the draft blocks (as an import spec's refersTo would): `comment` holds a floating IP's id, `binary` an app's.
    const app = (name: string, id: number, attributes: Record<string, unknown>, refersTo?: DraftBlock['refersTo']): DraftBlock => ({
      type: 'fastedge_app',
      name,
      attributes: { app_id: id, ...attributes },
      comment: `imported from GET /fastedge/v1/apps: id ${id}`,
      id: String(id),
      ...(refersTo ? { refersTo } : {}),
    });
    const refs = { comment: 'cloud_floating_ip', binary: 'fastedge_app' } as const;
    const result = writeStack({
      blocks: [
        { ...fip(FIP, 1, 76, {}, 'edge'), id: FIP },
        app('gw', 1300, { name: 'gw', binary: 1301, comment: FIP }, refs),
        app('base', 1301, { name: 'base', binary: 7, comment: FIP2 }, refs),
        // The id of a block of another kind is not one of the named kind: literal.
        app('other', 1302, { name: 'other', binary: 8, comment: '1300' }, refs),
      ],
    });
    expect(result.leftOut).toEqual([]);
    expect(result.text).toContain('  gw:\n    type: fastedge_app\n    app_id: 1300\n');
    expect(result.text).toContain('    binary: "${fastedge_app.base.id}"\n');
    expect(result.text).toContain('    comment: "${cloud_floating_ip.edge.id}"\n');
    const { stack, diagnostics } = await load(result.text);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const byName = new Map(stack!.resources.map((r) => [r.address, r]));
    expect(byName.get('fastedge_app.gw')!.attributes).toMatchObject({ binary: '${fastedge_app.base.id}', comment: '${cloud_floating_ip.edge.id}' });
    expect(byName.get('fastedge_app.gw')!.dependsOn).toEqual(expect.arrayContaining(['fastedge_app.base', 'cloud_floating_ip.edge']));
    // No block of the kind holds the value (FIP2, 7), or the value is another kind's id ('1300' as a comment): written as data.
    expect(byName.get('fastedge_app.base')!.attributes).toMatchObject({ binary: 7, comment: FIP2 });
    expect(byName.get('fastedge_app.other')!.attributes).toMatchObject({ binary: 8, comment: '1300' });
  });

  it('writes each item of a refersTo list that names a block as a reference, the others as data', async () => {
    // An instance's volume_ids; floating IP blocks stand in for the kind the ids name.
    const vm: DraftBlock = {
      type: 'cloud_instance',
      name: 'vm',
      attributes: { project_id: 1, region_id: 76, instance_id: 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11', flavor_id: 'g2-standard-2-4', volume_ids: [FIP, FIP2] },
      comment: 'c',
      id: 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11',
      refersTo: { volume_ids: 'cloud_floating_ip' },
    };
    const result = writeStack({ blocks: [{ ...fip(FIP, 1, 76, {}, 'edge'), id: FIP }, vm] });
    expect(result.leftOut).toEqual([]);
    expect(result.text).toContain(`    volume_ids:\n      - "\${cloud_floating_ip.edge.id}"\n      - ${FIP2}\n`);
    const { stack, diagnostics } = await load(result.text);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const loaded = stack!.resources.find((r) => r.address === 'cloud_instance.vm')!;
    expect(loaded.attributes).toMatchObject({ volume_ids: ['${cloud_floating_ip.edge.id}', FIP2] });
    expect(loaded.dependsOn).toContain('cloud_floating_ip.edge');
  });

  it('writes a literal id where the block it would name is left out, or where two blocks of the kind hold that id', () => {
    const gw: DraftBlock = {
      type: 'fastedge_app',
      name: 'gw',
      attributes: { app_id: 1, name: 'gw', comment: FIP },
      comment: 'c',
      id: '1',
      refersTo: { comment: 'cloud_floating_ip' },
    };
    const leftOut = writeStack({ blocks: [{ ...fip(FIP, 1, 76, { bad: 'a\ud800b' }, 'edge'), id: FIP }, gw] });
    expect(leftOut.leftOut.map((l) => l.index)).toEqual([0]);
    expect(leftOut.text).toContain(`    comment: ${FIP}\n`);
    const twice = writeStack({ blocks: [{ ...fip(FIP, 1, 76, {}, 'edge'), id: FIP }, { ...fip(FIP, 1, 76, {}, 'edge_again'), id: FIP }, gw] });
    expect(twice.text).toContain(`    comment: ${FIP}\n`);
    expect(twice.text).not.toContain('${');
  });

  it('keeps a literal id where a reference would close a cycle (a block naming itself, two blocks naming each other), so the stack loads', async () => {
    const app = (name: string, id: number, binary: number): DraftBlock => ({
      type: 'fastedge_app',
      name,
      attributes: { app_id: id, name: `app-${name}`, binary },
      comment: 'c',
      id: String(id),
      refersTo: { binary: 'fastedge_app' },
    });
    const text = written({ blocks: [app('a', 1, 2), app('b', 2, 1), app('self', 3, 3)] });
    expect(text).toContain('  a:\n    type: fastedge_app\n    app_id: 1\n    name: app-a\n    binary: "${fastedge_app.b.id}"\n');
    expect(text).toContain('  b:\n    type: fastedge_app\n    app_id: 2\n    name: app-b\n    binary: 1\n');
    expect(text).toContain('    binary: 3\n');
    expect((await load(text)).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('writes an env placeholder as ${env:PREFIX_BLOCK}, a name of letters, digits and _ only and unique in the stack, whatever the live name holds', () => {
    const secret = (name: string, id: string): DraftBlock => ({
      type: 'cloud_secret',
      name,
      attributes: { project_id: 1, region_id: 76, secret_id: id, name },
      comment: 'imported',
      envPlaceholders: { private_key: 'TLS_KEY' },
    });
    const names = ['web-cert', 'web_cert', 'x}${env:EDGEFORM_API_KEY}\n#', '\u202e', 'secret'];
    const result = writeStack({ blocks: names.map((n, i) => secret(n, `5c000000-0000-4000-8000-00000000000${i}`)) });
    expect(result.leftOut.map((l) => l.reason)).toEqual([]);
    const variables = result.placeholders.map((p) => p.variable);
    for (const v of variables) expect(v).toMatch(/^TLS_KEY(_[A-Z0-9]+)*$/);
    expect(new Set(variables).size).toBe(names.length);
    expect(variables.slice(0, 2)).toEqual(['TLS_KEY_WEB_CERT', 'TLS_KEY_WEB_CERT_2']);
    expect(result.placeholders.map((p) => p.field)).toEqual(names.map(() => 'private_key'));
    // Each placeholder is the only ${env: the file holds as a reference: every live text stays data ($${).
    const references = [...result.text.matchAll(/(?<!\$)\$\{env:([^}]*)\}/g)].map((m) => m[1]);
    expect(references).toEqual(variables);
  });

  it('leaves out a block holding the API key of the environment', () => {
    const key = 'emu$write-stack-key-0123456789abcdef';
    const result = writeStack({ blocks: [{ type: 'fastedge_app', name: 'a', attributes: { app_id: 1, name: `x ${key}` }, comment: 'c' }] }, { EDGEFORM_API_KEY: key });
    expect(result.leftOut).toEqual([{ index: 0, reason: expect.stringContaining('API key') }]);
    expect(result.text).not.toContain(key);
  });

  it("starts with the yaml-language-server schema line and is in fmt's canonical order (identity first)", () => {
    const text = written({
      blocks: [
        {
          type: 'iam_reseller_notification_setting',
          name: 'failed_login',
          attributes: { reseller_id: 7, notification_settings_id: 3, notification_type: 'failed_login', email: 'ops@example.com', enabled: true },
          comment: 'c',
        },
      ],
    });
    expect(text.startsWith('# yaml-language-server: $schema=./edgeform.schema.json\n')).toBe(true);
    expect(text).toContain('    type: iam_reseller_notification_setting\n    notification_settings_id: 3\n');
    expect(formatStackText(text)).toEqual({ ok: true, text, changed: false });
  });

  it('escapes control and bidi characters in comments, which stay one line', () => {
    const text = written({ blocks: [{ ...fip(FIP, 1, 76, {}), comment: 'name "a\u202eb\nc\u001b[31m"' }] });
    expect(text).toContain('  # name "a\\u202eb\\nc\\u001b[31m"\n');
  });
});

describe('block names', () => {
  it('makes a live name a valid block name', () => {
    expect(sanitizeBlockName('web-1', 'cloud_instance')).toBe('web-1');
    expect(sanitizeBlockName('ip_203.0.113.10', 'cloud_floating_ip')).toBe('ip_203_0_113_10');
    expect(sanitizeBlockName('My App (prod)', 'fastedge_app')).toBe('My_App_prod');
    expect(sanitizeBlockName('1234', 'fastedge_app')).toBe('fastedge_app_1234');
    expect(sanitizeBlockName('-x', 'fastedge_app')).toBe('fastedge_app_-x');
    expect(sanitizeBlockName('日本', 'streaming_player')).toBe('streaming_player');
    expect(sanitizeBlockName('', 'streaming_player')).toBe('streaming_player');
    // The words of a credential's name are left out (the reader refuses a key holding one), here and in the type.
    expect(sanitizeBlockName('${env:SECRET_TOKEN}', 'streaming_player')).toBe('env');
    expect(sanitizeBlockName('tls-secret', 'cloud_secret')).toBe('tls');
    expect(sanitizeBlockName('Secret', 'cloud_secret')).toBe('cloud');
    expect(sanitizeBlockName('4-api-key', 'cloud_secret')).toBe('cloud_4');
  });

  it('numbers names already taken, across kinds', () => {
    const blocks = [
      { type: 'cloud_instance', name: 'prod-eu' },
      { type: 'cloud_k8s_cluster', name: 'prod-eu' },
      { type: 'cloud_instance', name: 'prod eu' },
      { type: 'cloud_instance', name: 'prod-eu_2' },
    ] as const;
    expect(uniqueBlockNames(blocks)).toEqual(['prod-eu', 'prod-eu_2', 'prod_eu', 'prod-eu_2_2']);
  });

  it('always gives valid, unique names of at most MAX_BLOCK_NAME characters', () => {
    fc.assert(
      fc.property(fc.array(codePointString({ maxLength: 80 }), { maxLength: 30 }), (hints) => {
        const names = uniqueBlockNames(hints.map((name) => ({ type: 'fastedge_app' as const, name })));
        for (const name of names) {
          expect(name).toMatch(NAME_PATTERN);
          expect(name.length).toBeLessThanOrEqual(MAX_BLOCK_NAME);
        }
        expect(new Set(names).size).toBe(names.length);
      }),
    );
  });
});
