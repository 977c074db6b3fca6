/**
 * `edgeform import` writes data, never instructions: over generated live worlds (every importable
 * kind, live text over all of Unicode, `${...}` interpolations, YAML's words and indicators), with
 * hostile variables in the environment, `import --all` then `plan` exits 0 with no changes and
 * sends nothing but reads; every live item is in the stack or named in a warning; what import
 * wrote is canonical (`fmt --check`); no variable of the environment reaches the platform or any
 * output.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EmulatorFixtures } from '../../../src/emulator/index.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { anyString } from '../../helpers/code-points.js';

/** Variables a pipeline may hold: none of their values may reach the platform, the stack or any output. */
const HOSTILE_ENV = { SECRET_TOKEN: 'ci-secret-token-4242', HOME: '/home/ci-home-4242', X: 'ci-x-4242' };
const LEAKS = Object.values(HOSTILE_ENV);

/** Text a live field may hold: interpolations of the hostile variables, YAML's special words and indicators, any Unicode. */
const hostile = fc.oneof(
  fc.constantFrom(
    '${env:SECRET_TOKEN}',
    'a ${env:HOME} b',
    '$${env:X}',
    '${env:NOPE}',
    '${x}',
    '$',
    'yes',
    'No',
    '~',
    'null',
    '<<',
    '# not a comment',
    'key: value',
    ' padded ',
    'two\nlines',
    '"quoted"',
    "'single'",
    '- item',
    '[flow]',
    '{flow}',
    '&anchor',
    '*alias',
    '!tag',
    '|',
    '>',
    '1e3',
    '0x1F',
    '1:20',
    '2001-12-14',
    '.inf',
    '日本語',
    'e\u0301',
    '🙂',
    '\u202eevil',
    'x'.repeat(300),
  ),
  anyString({ minLength: 1, maxLength: 16 }),
  fc.string({ unit: fc.constantFrom('$', '{', '}', 'env:', 'SECRET_TOKEN', ':', ' ', '#', '\n', '"', '~', '<<', 'a'), minLength: 1, maxLength: 12 }),
);

const uuid = (kind: number, n: number) => `${String(kind).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const VTT = (text: string) => `WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\n${text.replace(/-->/g, '')}\n`;

/** A generated world: a few resources of every importable kind, in two projects and regions, their text hostile. */
const world = fc.record({
  fips: fc.array(fc.record({ p: fc.integer({ min: 1, max: 2 }), tags: fc.dictionary(hostile, hostile, { maxKeys: 3 }) }), { maxLength: 3 }),
  vms: fc.array(fc.record({ p: fc.integer({ min: 1, max: 2 }), name: hostile }), { maxLength: 2 }),
  clusters: fc.array(hostile, { maxLength: 2 }),
  apps: fc.array(
    fc.record({
      comment: fc.option(
        hostile.filter((h) => h.length <= 1024),
        { nil: undefined },
      ),
    }),
    { maxLength: 2 },
  ),
  players: fc.array(hostile, { maxLength: 2 }),
  settings: fc.array(
    fc.record({
      email: fc.oneof(
        fc.constant('ops@example.com'),
        hostile.filter((h) => h.length < 200).map((h) => `${h}@example.com`),
      ),
      enabled: fc.boolean(),
    }),
    { maxLength: 2 },
  ),
  quotas: fc.array(hostile, { maxLength: 2 }),
  subtitles: fc.array(fc.record({ name: hostile, text: hostile }), { maxLength: 2 }),
});

type World = typeof world extends fc.Arbitrary<infer W> ? W : never;

function fixturesOf(w: World): { fixtures: EmulatorFixtures; items: number } {
  const fixtures = {
    k8s_versions: ['v1.31.3'],
    floating_ips: w.fips.map((f, i) => ({
      id: uuid(1, i),
      project_id: f.p,
      region_id: 75 + f.p,
      // The platform's own rule for tags (the emulator's fixtures refuse others).
      tags: Object.fromEntries(Object.entries(f.tags).filter(([k, v]) => /^[^\s=]{1,255}$/.test(k) && v.length <= 255)),
    })),
    instances: w.vms.map((vm, i) => ({ id: uuid(2, i), project_id: vm.p, region_id: 75 + vm.p, name: vm.name, flavor_id: 'g2-standard-2-4' })),
    k8s_clusters: w.clusters.map((name, i) => ({ name: `c${i}-${name}`, version: 'v1.31.3', status: 'Provisioned' })),
    // App names are the platform's (lowercase letters, digits, dashes): the comment holds the hostile text.
    fastedge_apps: w.apps.map((a, i) => ({
      id: 100 + i,
      name: `app-${i}`,
      status: 1,
      binary: 1,
      plan_id: 1,
      plan: 'basic',
      ...(a.comment === undefined ? {} : { comment: a.comment }),
    })),
    streaming_players: w.players.map((name, i) => ({ id: 200 + i, name })),
    notification_settings: w.settings.map((s, i) => ({
      id: 300 + i,
      reseller: 7,
      notification_type: i % 2 === 0 ? 'failed_login' : 'deletion_request',
      email: s.email,
      enabled: s.enabled,
    })),
    quota_requests: w.quotas.map((description, i) => ({
      id: 400 + i,
      status: 'in progress',
      description,
      requested_limits: { regional_limits: [{ region_id: 76, cpu_count_limit: 64 }] },
      created_at: '2025-12-10T08:00:00',
    })),
    videos: [{ id: 500, subtitles: w.subtitles.map((s, i) => ({ id: 600 + i, name: s.name, language: ['eng', 'ger'][i]!, vtt: VTT(s.text) })) }],
  };
  const items = [
    fixtures.floating_ips,
    fixtures.instances,
    fixtures.k8s_clusters,
    fixtures.fastedge_apps,
    fixtures.streaming_players,
    fixtures.notification_settings,
    fixtures.quota_requests,
  ]
    .map((list) => list.length)
    .reduce((a, b) => a + b, w.subtitles.length);
  return { fixtures: fixtures as unknown as EmulatorFixtures, items };
}

let emu: TestEmulator | undefined;
closeAfterEach(() => [emu]);

describe('import then plan (property)', () => {
  it('import --all then plan exits 0 with no changes and sends nothing but reads, whatever the live text and the environment hold', async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const { fixtures, items } = fixturesOf(w);
        await emu?.close();
        emu = await startTestEmulator({ fixtures });
        const env = { ...HOSTILE_ENV, EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey };
        const file = join(mkdtempSync(join(tmpdir(), 'edgeform-import-plan-')), 'stack.yaml');
        const imported = await runCliInProcess(['import', '--all', '--reseller-id', '7', '--out', file], { env });
        expect(imported.code, imported.stderr).toBe(0);
        expect(existsSync(file)).toBe(true);
        const text = readFileSync(file, 'utf8');
        // Every live item is either a block or named in a warning.
        const blocks = (text.match(/^ {2}# imported from /gm) ?? []).length;
        const warnings = (imported.stderr.match(/^Warning: a \w+ not imported: /gm) ?? []).length;
        expect(blocks + warnings).toBe(items);
        const fmt = await runCliInProcess(['fmt', '--check', file], { env });
        expect(fmt.code, fmt.stdout).toBe(0);
        const plan = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
        expect(plan.code, plan.stdout + plan.stderr).toBe(0);
        expect(plan.stdout).toContain('No changes.');
        expect(emu.requests.filter((r) => r.method !== 'GET')).toEqual([]);
        expect(emu.mutations).toEqual([]);
        const seen = [text, imported.stdout, imported.stderr, plan.stdout, plan.stderr, JSON.stringify(emu.requests)].join('\n');
        for (const leak of LEAKS) expect(seen).not.toContain(leak);
      }),
      { numRuns: 25 },
    );
  });
});
