/**
 * edgeform import across places and odd answers: every project and region (long lists paged), a
 * place that fails, items that make no block, what another stack manages. The demo world's
 * imports and the refusals are in import.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../cmd/run-cli.js';
import type { EmulatorFixtures } from '../../../src/emulator/index.js';
import { captureStream } from '../../helpers/capture.js';
import { cliEnv } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { blocks, expectFormatted, tempDir, type Block } from '../../helpers/import.js';

const FIP_LIST = '/cloud/v1/floatingips/{project_id}/{region_id}';
const SUBTITLE_LIST = '/streaming/videos/{video_id}/subtitles';

/** Runs the CLI in this process with stderr a pretend terminal, to see the progress lines. */
async function runOnTerminal(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = captureStream();
  const stderr = captureStream({ isTTY: true });
  const code = await runCli(args, { env: cliEnv(env), stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const KEY = 'emu$import-test-key-0123456789abcdef';
const ip = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** Subtitle text with Windows line ends, and plain text. */
const CRLF_VTT = 'WEBVTT\r\n\r\n00:00:01.000 --> 00:00:02.000\r\nBonjour.\r\n';
const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nLast.\n';

/**
 * A world of two projects and three regions (one without Kubernetes, one inactive), 1,005 floating IPs in one place and one in another,
 * and 120 videos (more than a page of the video list), the first and the last with subtitles.
 */
const WIDE_WORLD: EmulatorFixtures = {
  projects: [
    { id: 1, name: 'default', is_default: true, created_at: '2025-01-01T00:00:00Z' },
    { id: 2, name: 'staging', created_at: '2025-02-01T00:00:00Z' },
  ],
  regions: [
    { id: 76, display_name: 'Luxembourg 1', created_at: '2025-01-01T00:00:00Z' },
    { id: 8, display_name: 'Frankfurt', has_k8s: false, created_at: '2025-02-01T00:00:00Z' },
    { id: 9, display_name: 'Closed', state: 'INACTIVE', created_at: '2025-03-01T00:00:00Z' },
  ],
  floating_ips: [
    ...Array.from({ length: 1005 }, (_, i) => ({ id: ip(i + 1), floating_ip_address: `10.1.${Math.floor(i / 250)}.${i % 250}`, tags: { n: String(i) } })),
    { id: ip(5000), project_id: 2, region_id: 8, floating_ip_address: null, tags: {}, read_only_tags: { owner: 'platform' } },
  ],
  k8s_versions: ['v1.30.6'],
  k8s_clusters: [{ name: 'eu', version: 'v1.30.6', status: 'Provisioned', pools: [{ name: 'p', flavor_id: 'g2-standard-4-8', node_count: 1 }] }],
  streaming_players: [{ id: 70, name: 'evil\u001b[31m\u202eplayer' }],
  videos: Array.from({ length: 120 }, (_, i) => ({
    id: 1001 + i,
    subtitles:
      i === 0
        ? [
            { id: 1, name: 'Fran\u00e7ais', language: 'fre', vtt: CRLF_VTT },
            { id: 2, language: 'eng', vtt: VTT },
          ]
        : i === 119
          ? [{ id: 3, name: 'Last', language: 'eng', vtt: VTT }]
          : [],
  })),
};

/** The lists of the wide world's places (regions 76, 8 and the inactive 9) a request log holds, sorted. */
const inPlaces = (paths: readonly string[]) => paths.filter((p) => p.includes('/76') || p.includes('/8') || p.includes('/9')).sort();

/** The floating IP lists of the wide world (1/76 holds 1,005: two pages) and its cluster lists. */
const FLOATING_IP_AND_CLUSTER_LISTS = [
  '/cloud/v1/floatingips/1/76',
  '/cloud/v1/floatingips/1/76',
  '/cloud/v1/floatingips/1/8',
  '/cloud/v1/floatingips/2/76',
  '/cloud/v1/floatingips/2/8',
  '/cloud/v2/k8s/clusters/1/76',
  '/cloud/v2/k8s/clusters/2/76',
];

describe('edgeform import across projects and regions, with long lists', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { fixtures: WIDE_WORLD, apiKey: KEY });

  const env = { EDGEFORM_BASE_URL: '', EDGEFORM_API_KEY: KEY };

  it('imports every active project and region the platform lists, paging long lists, and plan on the result reports no changes', async () => {
    const dir = tempDir();
    const file = join(dir, 'stack.yaml');
    emu.requests.length = 0;
    const imported = await runCliInProcess(['import', '--all', '--out', file], { env: { ...env, EDGEFORM_BASE_URL: emu.url } });
    expect(imported.code, imported.stderr).toBe(0);
    const routes = emu.requests.map((r) => r.path);
    // Region 9 is inactive: nothing is listed there; region 8 has no Kubernetes: no cluster list
    // there. The client quotas count floating IPs in regions 76 and 8 and a cluster in 76, and no
    // instance, network, subnet, security group, volume or SSH key: those kinds are not listed.
    expect(routes).toContain('/cloud/v2/client_quotas');
    expect(inPlaces(routes)).toEqual([...FLOATING_IP_AND_CLUSTER_LISTS].sort());
    expect(routes.filter((p) => p.startsWith('/cloud/v1/ssh_keys'))).toEqual([]);
    const text = readFileSync(file, 'utf8');
    await expectFormatted(file);
    const stack = parse(text) as { defaults?: Record<string, unknown>; resources: Record<string, Block> };
    expect(stack.defaults).toBeUndefined();
    const ips = Object.values(stack.resources).filter((b) => b.type === 'cloud_floating_ip');
    expect(ips).toHaveLength(1006);
    expect(ips.at(-1)).toEqual({ type: 'cloud_floating_ip', project_id: 2, region_id: 8, floating_ip_id: ip(5000), tags: {} });
    expect(Object.keys(stack.resources)).toContain(`ip_${ip(5000).slice(0, 8)}`);
    const plan = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env: { ...env, EDGEFORM_BASE_URL: emu.url } });
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('lists every kind in every project and region when the client quotas cannot be read, as without them', async () => {
    emu.faults.failNext({ method: 'GET', path: '/cloud/v2/client_quotas', status: 403 });
    emu.requests.length = 0;
    const imported = await runCliInProcess(['import', '--all'], { env: { ...env, EDGEFORM_BASE_URL: emu.url } });
    expect(imported.code, imported.stderr).toBe(0);
    const routes = emu.requests.map((r) => r.path);
    expect(inPlaces(routes)).toEqual(
      [
        ...FLOATING_IP_AND_CLUSTER_LISTS,
        '/cloud/v1/instances/1/76',
        '/cloud/v1/instances/1/8',
        '/cloud/v1/instances/2/76',
        '/cloud/v1/instances/2/8',
        ...['1/76', '1/8', '2/76', '2/8'].flatMap((place) => [
          `/cloud/v1/networks/${place}`,
          `/cloud/v1/subnets/${place}`,
          `/cloud/v1/securitygroups/${place}`,
          `/cloud/v1/volumes/${place}`,
          `/cloud/v1/secrets/${place}`,
          `/cloud/v1/loadbalancers/${place}`,
          `/cloud/v1/lblisteners/${place}`,
          `/cloud/v1/lbpools/${place}`,
          `/cloud/v1/l7policies/${place}`,
        ]),
      ].sort(),
    );
    expect(routes.filter((p) => p.startsWith('/cloud/v1/ssh_keys')).sort()).toEqual(['/cloud/v1/ssh_keys/1', '/cloud/v1/ssh_keys/2']);
  });

  it('lists a kind in the regions named with --region-id whatever the client quotas count', async () => {
    emu.requests.length = 0;
    const imported = await runCliInProcess(['import', 'cloud_instance', '--region-id', '8'], { env: { ...env, EDGEFORM_BASE_URL: emu.url } });
    expect(imported.code, imported.stderr).toBe(0);
    expect(
      emu.requests
        .map((r) => r.path)
        .filter((p) => p.startsWith('/cloud/v1/instances') || p === '/cloud/v2/client_quotas')
        .sort(),
    ).toEqual(['/cloud/v1/instances/1/8', '/cloud/v1/instances/2/8']);
  });

  it('imports the subtitles of every video the platform lists, page after page, and plan on the result reports no changes', async () => {
    const file = join(tempDir(), 'stack.yaml');
    emu.requests.length = 0;
    const imported = await runCliInProcess(['import', 'streaming_video_subtitle', '--out', file], { env: { ...env, EDGEFORM_BASE_URL: emu.url } });
    expect(imported.code, imported.stderr).toBe(0);
    await expectFormatted(file);
    expect(emu.requests.filter((r) => r.route === '/streaming/videos')).toHaveLength(3);
    expect(new Set(emu.requests.filter((r) => r.route === SUBTITLE_LIST).map((r) => r.path)).size).toBe(120);
    const stack = parse(readFileSync(file, 'utf8')) as { resources: Record<string, Block> };
    expect(stack.resources).toEqual({
      video_1001_fre: { type: 'streaming_video_subtitle', subtitle_id: 1, video_id: 1001, language: 'fre', name: 'Fran\u00e7ais', vtt: CRLF_VTT },
      video_1001_eng: { type: 'streaming_video_subtitle', subtitle_id: 2, video_id: 1001, language: 'eng', vtt: VTT },
      video_1120_eng: { type: 'streaming_video_subtitle', subtitle_id: 3, video_id: 1120, language: 'eng', name: 'Last', vtt: VTT },
    });
    const plan = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env: { ...env, EDGEFORM_BASE_URL: emu.url } });
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('shows progress of subtitles on a terminal: the videos found, then each video with what it found', async () => {
    const result = await runOnTerminal(['import', 'streaming_video_subtitle'], { ...env, EDGEFORM_BASE_URL: emu.url, CI: undefined });
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe('Discovering videos: 120 videos');
    expect(lines).toHaveLength(122);
    expect(lines).toContain('Discovering streaming_video_subtitle of video 1001: 2 found');
    expect(lines).toContain('Discovering streaming_video_subtitle of video 1002: 0 found');
  });

  it('escapes control and bidi characters of live names: in the block name, the comment and the output', async () => {
    const result = await runCliInProcess(['import', 'streaming_player'], { env: { ...env, EDGEFORM_BASE_URL: emu.url } });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u001b\u202e]/);
    expect(result.stdout).toContain('  # imported from GET /streaming/players: id "70", name "evil\\u001b[31m\\u202eplayer"\n  evil_31m_player:\n');
  });

  it('shows progress on a terminal: the projects and regions, then each list with what it found, long lists page by page', async () => {
    const result = await runOnTerminal(['import', 'cloud_floating_ip', '--project-id', '1', '--project-id', '2'], { ...env, EDGEFORM_BASE_URL: emu.url, CI: undefined });
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n')).toEqual([
      'Discovering projects and regions: 2 projects, 2 regions',
      expect.stringMatching(/^Discovering cloud_floating_ip in project [12] region (76|8): \d+ found( so far)?$/),
      expect.anything(),
      expect.anything(),
      expect.anything(),
      expect.anything(),
      '',
    ]);
    expect(result.stderr).toContain('Discovering cloud_floating_ip in project 1 region 76: 1000 found so far\n');
    expect(result.stderr).toContain('Discovering cloud_floating_ip in project 1 region 76: 1005 found\n');
    expect(result.stderr).toContain('Discovering cloud_floating_ip in project 2 region 8: 1 found\n');
    expect(result.stderr).toContain('Discovering cloud_floating_ip in project 2 region 76: 0 found\n');
  });

  it('shows no progress in CI, even on a terminal', async () => {
    const result = await runOnTerminal(['import', 'cloud_floating_ip', '--region-id', '76'], { ...env, EDGEFORM_BASE_URL: emu.url, CI: 'true' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });
});

describe('edgeform import when the platform fails or answers what makes no block', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({
      fixtures: {
        floating_ips: [{ id: ip(1), tags: { env: ' padded' } }],
        streaming_players: [{ id: 70, name: `player ${KEY}` }],
        videos: [{ id: 5, subtitles: [{ id: 9, name: 'broken', language: 'eng', vtt: 'WEBVTT\n\n00:00:04.000 --> 00:00:01.000\nBackwards.\n' }] }],
      },
      apiKey: KEY,
    });
  });
  afterAll(() => emu.close());
  beforeEach(() => emu.reset());

  const run = (args: string[], key = KEY) => runCliInProcess(['import', ...args], { env: { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: key } });

  it('skips an item that makes no valid block with a warning naming it and why, and imports the rest', async () => {
    const file = join(tempDir(), 'stack.yaml');
    const result = await run(['--all', '--out', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `Warning: a cloud_floating_ip not imported: GET /cloud/v1/floatingips/1/76: id "${ip(1)}": it makes no valid cloud_floating_ip block: tags.env: a tag value must not start or end with whitespace\n`,
    );
    expect(result.stderr).toContain(
      'Warning: a streaming_video_subtitle not imported: GET /streaming/videos/5/subtitles: id "9", language "eng", name "broken": it makes no valid streaming_video_subtitle block: vtt: must be WebVTT: line 3, column 18 of the text: the cue ends (00:00:01.000) before it starts (00:00:04.000)\n',
    );
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`# Not imported: cloud_floating_ip GET /cloud/v1/floatingips/1/76: id "${ip(1)}" (it makes no valid cloud_floating_ip block: `);
    // The world's other item, a player, holds the API key: left out too (see below).
    expect(blocks(text)).toEqual({});
    await expectFormatted(file);
  });

  it('fails naming the flag that skips it when the videos cannot be listed', async () => {
    emu.faults.failNext({ method: 'GET', path: '/streaming/videos', status: 403 });
    const result = await run(['streaming_video_subtitle']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: listing the streaming videos failed (name them with --video-id to skip this): ');
  });

  it('fails naming the kind and place when a list request fails', async () => {
    emu.faults.failNext({ method: 'GET', path: FIP_LIST, status: 403 });
    const result = await run(['cloud_floating_ip']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: importing cloud_floating_ip in project 1 region 76 failed: GET \/cloud\/v1\/floatingips\/1\/76/);
    expect(result.stdout).toBe('');
  });

  it('fails naming the flags that skip it when the projects cannot be listed', async () => {
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/projects', status: 403 });
    const result = await run(['cloud_instance']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: listing the cloud projects and regions failed (name them with --project-id and --region-id to skip this): ');
  });

  it('stops with one error when the key is refused', async () => {
    const result = await run(['--all'], 'emu$wrong-key-0000000000000000');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refused the API key in EDGEFORM_API_KEY');
    expect(result.stderr.match(/^Error:/gm)).toHaveLength(1);
  });

  it('leaves out a resource whose live text holds the API key, with a warning that does not show it', async () => {
    const out = await run(['streaming_player']);
    expect(out.code).toBe(0);
    expect(out.stdout).not.toContain(KEY);
    expect(out.stderr).not.toContain(KEY);
    expect(out.stderr).toMatch(
      /^Warning: a streaming_player not imported: GET \/streaming\/players: id "70", name "player \[REDACTED\]": it would not read back: this value contains the API key/m,
    );
    const file = join(tempDir(), 'stack.yaml');
    expect((await run(['streaming_player', '--out', file])).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(KEY);
    expect(blocks(text)).toEqual({});
  });
});

describe('edgeform import of a floating IP another stack created', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({
      apiKey: KEY,
      fixtures: { floating_ips: [{ id: ip(1), floating_ip_address: '10.9.0.1', tags: { env: 'prod', 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.web' } }] },
    });
  });
  afterAll(() => emu.close());

  it('leaves it out with a warning naming the stack that manages it, so plan on the result is clean', async () => {
    const file = join(tempDir(), 'stack.yaml');
    const env = { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: KEY };
    const imported = await runCliInProcess(['import', 'cloud_floating_ip', '--project-id', '1', '--region-id', '76', '--out', file], { env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('edgeform stack "prod" manages it as cloud_floating_ip.web');
    expect(imported.stderr).toContain('moved_from: prod/cloud_floating_ip.web');
    const text = readFileSync(file, 'utf8');
    await expectFormatted(file);
    expect(text).not.toContain('floating_ip_id');
    // Adopting by id what another stack's ownership tags name would be a plan error: left out, the import plans clean.
    const plan = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});

describe('edgeform import --all of a world spread over projects and regions its fixtures do not name', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({
      apiKey: KEY,
      fixtures: {
        floating_ips: [1, 2, 3].map((n) => ({ id: ip(n), project_id: n, region_id: 75 + n, tags: { n: String(n) } })),
        instances: [{ id: ip(10), project_id: 4, region_id: 80, name: 'vm', flavor_id: 'g2-standard-2-4' }],
      },
    });
  });
  afterAll(() => emu.close());

  it('imports from every project and region the account has, and plan on the result reports no changes', async () => {
    const file = join(tempDir(), 'stack.yaml');
    const env = { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: KEY };
    const imported = await runCliInProcess(['import', '--all', '--out', file], { env });
    expect(imported.code, imported.stderr).toBe(0);
    const found = Object.values(blocks(readFileSync(file, 'utf8')));
    expect(found.map((b) => b.floating_ip_id ?? b.instance_id).sort()).toEqual([ip(1), ip(2), ip(3), ip(10)]);
    const plan = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('fails naming the place when one of its lists cannot be read, and writes nothing', async () => {
    emu.faults.failNext({ method: 'GET', path: '/cloud/v1/floatingips/3/78', status: 403 });
    const file = join(tempDir(), 'stack.yaml');
    const result = await runCliInProcess(['import', '--all', '--out', file], { env: { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: KEY } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: importing cloud_floating_ip in project 3 region 78 failed: GET \/cloud\/v1\/floatingips\/3\/78: 403/m);
    expect(existsSync(file)).toBe(false);
  });
});
