import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { RESOURCE_KINDS, RESOURCE_TYPES, type ResourceType } from '../../../src/kinds/registry.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { blocks, expectFormatted, tempDir, type Block } from '../../helpers/import.js';

const FIP_LIST = '/cloud/v1/floatingips/{project_id}/{region_id}';
const INSTANCE_LIST = '/cloud/v1/instances/{project_id}/{region_id}';
const CLUSTER_LIST = '/cloud/v2/k8s/clusters/{project_id}/{region_id}';
const SUBTITLE_LIST = '/streaming/videos/{video_id}/subtitles';

/** The resources of each kind in the demo world (docs/demo-world.md), notification settings of reseller 7. */
const DEMO_COUNTS: Record<ResourceType, number> = {
  cloud_floating_ip: 2,
  cloud_instance: 1,
  cloud_k8s_cluster: 1,
  cloud_security_group: 0,
  cloud_volume: 0,
  fastedge_app: 2,
  streaming_player: 2,
  iam_reseller_notification_setting: 2,
  cloud_quota_limit_request: 2,
  streaming_video_subtitle: 3,
  dns_zone: 1,
  dns_rrset: 6,
  // The demo world has no CDN: CDN import is tested against its own world (cdn-import.test.ts).
  cdn_origin_group: 0,
  cdn_resource: 0,
  cdn_rule: 0,
  cloud_network: 0,
  cloud_subnet: 0,
  cloud_ssh_key: 0,
  // The demo world has no load balancer: their import is tested in load-balancers.test.ts.
  cloud_load_balancer: 0,
  cloud_lb_listener: 0,
  cloud_lb_pool: 0,
  cloud_lb_l7policy: 0,
  cloud_secret: 0,
};

describe('edgeform import against the demo world', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started));

  const env = () => ({ EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey });
  async function edgeform(args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<CliResult> {
    const result = await runCliInProcess(args, { env: { ...env(), ...extraEnv } });
    expect(result.stdout).not.toContain(emu.apiKey);
    expect(result.stderr).not.toContain(emu.apiKey);
    return result;
  }

  /** Imports into a file and plans it: the plan must report no changes. */
  async function importThenPlan(args: string[]): Promise<{ text: string; imported: CliResult; plan: CliResult }> {
    const file = join(tempDir(), 'stack.yaml');
    const imported = await edgeform(['import', ...args, '--out', file]);
    expect(imported.code, imported.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    await expectFormatted(file);
    const plan = await edgeform(['plan', file, '--detailed-exitcode']);
    return { text, imported, plan };
  }

  const IMPORTED = RESOURCE_TYPES.filter((type) => DEMO_COUNTS[type] > 0);

  it.each(IMPORTED)('imports every %s of the world, and plan on the result reports no changes', async (type) => {
    const { text, imported, plan } = await importThenPlan([type, ...(type === 'iam_reseller_notification_setting' ? ['--reseller-id', '7'] : [])]);
    const all = Object.values(blocks(text));
    const found = all.filter((b) => b.type === type);
    expect(found).toHaveLength(DEMO_COUNTS[type]);
    // Importing a zone brings its record sets (the demo zone's six); any other kind comes alone.
    expect(all.filter((b) => b.type !== type).map((b) => b.type)).toEqual(type === 'dns_zone' ? Array(DEMO_COUNTS.dns_rrset).fill('dns_rrset') : []);
    expect(imported.stdout).toContain(`Wrote ${all.length} resource${all.length === 1 ? '' : 's'} to `);
    expect(plan.stdout).toContain('No changes. Your infrastructure matches the configuration.');
    expect(plan.code, plan.stdout).toBe(0);
  });

  /**
   * Fields an import may leave out: what the kind's list does not show (an app's env and response
   * headers: they stay unmanaged), and what is unset on the live resource (a player's blank
   * settings inherit the default player's; an app's binary, status and comment may be absent).
   */
  const OPTIONAL_IN_IMPORT: Partial<Record<ResourceType, readonly string[]>> = {
    fastedge_app: ['env', 'rsp_headers', 'binary', 'status', 'comment'],
    streaming_player: Object.keys(RESOURCE_KINDS.streaming_player.shape.shape).filter((f) => f !== 'player_id' && f !== 'name'),
    // The text is written inline (vtt), never as a file.
    streaming_video_subtitle: ['vtt_file'],
    // Written only when the live zone or record set has them (none: not managed).
    // records_file: the records are written as dns_rrset blocks.
    dns_zone: ['meta', 'records_file'],
    dns_rrset: ['pickers', 'meta'],
    // What only a create sends and the instance does not show; the SSH key and volumes when it has none.
    cloud_instance: [
      'image_id',
      'boot_volume_size',
      'boot_volume_type',
      'boot_volume_id',
      'volume_ids',
      'interfaces',
      'security_group_ids',
      'ssh_key_name',
      'user_data',
      'user_data_file',
    ],
  };

  it.each(IMPORTED)("writes every field of %s's schema it has (not ensure, tags_policy) (project and region as defaults)", async (type) => {
    const { text } = await importThenPlan([type, ...(type === 'iam_reseller_notification_setting' ? ['--reseller-id', '7'] : [])]);
    const stack = parse(text) as { defaults?: Record<string, unknown>; resources: Record<string, Block> };
    const expected = Object.keys(RESOURCE_KINDS[type].shape.shape).filter((f) => f !== 'ensure' && f !== 'tags_policy');
    const optional = OPTIONAL_IN_IMPORT[type] ?? [];
    for (const block of Object.values(stack.resources).filter((b) => b.type === type)) {
      const written = Object.keys({ ...stack.defaults, ...block }).filter((f) => f !== 'type');
      expect(written.filter((f) => !expected.includes(f))).toEqual([]);
      expect(expected.filter((f) => !written.includes(f) && !optional.includes(f))).toEqual([]);
    }
  });

  it('imports --all (with a reseller) into one stack that plan reports no changes for, read-only tags left out', async () => {
    const { text, plan } = await importThenPlan(['--all', '--reseller-id', '7']);
    expect(plan.code, plan.stdout).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    const stack = parse(text) as { version: number; provider: { base_url: string }; defaults: Record<string, unknown>; resources: Record<string, Block> };
    expect(stack.version).toBe(1);
    expect(stack.provider).toEqual({ base_url: emu.url });
    expect(stack.defaults).toEqual({ project_id: 1, region_id: 76 });
    expect(Object.values(stack.resources).map((b) => b.type)).toEqual(IMPORTED.flatMap((t) => Array<string>(DEMO_COUNTS[t]).fill(t)));
    const ip = Object.values(stack.resources).find((b) => b.floating_ip_id === DEMO.fip)!;
    expect(ip.tags).toEqual({ env: 'staging', team: 'edge', owner: 'alice' });
    expect(text).not.toContain('managed-by');
  });

  it('names each block after the live name or address and comments where it came from', async () => {
    const result = await edgeform(['import', '--all', '--reseller-id', '7']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `  # imported from GET /cloud/v1/floatingips/1/76: id "${DEMO.fip}", address "203.0.113.10"\n  ip_203_0_113_10:\n    type: cloud_floating_ip\n    floating_ip_id: ${DEMO.fip}\n`,
    );
    expect(result.stdout).toContain(`  # imported from GET /cloud/v1/instances/1/76: id "${DEMO.instance}", name "web-1"\n  web-1:\n`);
    expect(result.stdout).toContain('  # imported from GET /cloud/v2/k8s/clusters/1/76: id "prod-eu", version "v1.29.8"\n  prod-eu:\n');
    expect(result.stdout).toContain('  # imported from GET /fastedge/v1/apps: id "1234", name "legacy-app"\n  legacy-app:\n    type: fastedge_app\n    app_id: 1234\n');
    expect(result.stdout).toContain('  # imported from GET /streaming/players: id "60", name "main-player"\n  main-player:\n');
    expect(result.stdout).toContain(
      '  # imported from GET /iam/reselling/resellers/7/notification_settings: id "3", type "failed_login", email "ops@example.com"\n  failed_login:\n',
    );
    expect(result.stdout).toContain(
      '  # imported from GET /cloud/v2/limits_request: id "42", status "in progress", description "More vCPUs for the staging project"\n  quota_request_42:\n',
    );
    expect(result.stdout).toContain(
      '  # imported from GET /streaming/videos/9876/subtitles: id "1001", language "ger", name "German (AI-generated)"\n  video_9876_ger:\n    type: streaming_video_subtitle\n    subtitle_id: 1001\n    video_id: 9876\n    language: ger\n    name: German (AI-generated)\n    vtt: |\n      WEBVTT\n',
    );
    expect(
      result.stdout.startsWith(
        '# yaml-language-server: $schema=./edgeform.schema.json\n# Written by edgeform import --all: each block adopts a live resource by its platform id.\n',
      ),
    ).toBe(true);
  });

  it('imports --all without --reseller-id and says, on stderr and in the stack, that notification settings need it (and nothing else is left out)', async () => {
    const result = await edgeform(['import', '--all']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('Note: iam_reseller_notification_setting not imported: it is listed per reseller, and the platform does not list resellers: add --reseller-id N\n');
    expect(result.stdout).toContain('# Not imported: iam_reseller_notification_setting (it is listed per reseller');
    expect(Object.values(blocks(result.stdout)).some((b) => b.type === 'iam_reseller_notification_setting')).toBe(false);
  });

  it('imports the subtitles of the videos named with --video-id, without listing the videos', async () => {
    emu.requests.length = 0;
    const result = await edgeform(['import', 'streaming_video_subtitle', '--video-id', '9877', '--video-id', '9877']);
    expect(result.code, result.stderr).toBe(0);
    expect(emu.requests.map((r) => r.path)).toEqual(['/streaming/videos/9877/subtitles']);
    expect(blocks(result.stdout)).toEqual({
      video_9877_eng: {
        type: 'streaming_video_subtitle',
        subtitle_id: 1002,
        video_id: 9877,
        language: 'eng',
        name: 'English',
        vtt: 'WEBVTT\n\n1\n00:00:00.500 --> 00:00:03.000\nThis is the product tour.\n',
      },
    });
  });

  it('lists the projects and regions once for --all, and only the lists of each kind in each of them', async () => {
    emu.requests.length = 0;
    expect((await edgeform(['import', '--all'])).code).toBe(0);
    expect(emu.requests.map((r) => `${r.method} ${r.route}`).sort()).toEqual(
      [
        'GET /cloud/v1/projects',
        'GET /cloud/v1/regions',
        `GET ${FIP_LIST}`,
        `GET ${INSTANCE_LIST}`,
        `GET ${CLUSTER_LIST}`,
        'GET /fastedge/v1/apps',
        'GET /streaming/players',
        'GET /streaming/players',
        'GET /cloud/v2/limits_request',
        'GET /streaming/videos',
        'GET /streaming/videos',
        `GET ${SUBTITLE_LIST}`,
        `GET ${SUBTITLE_LIST}`,
        // DNS: the zone list for the zones, and again for the record sets, then the one demo zone's record sets.
        'GET /dns/v2/zones',
        'GET /dns/v2/zones',
        'GET /dns/v2/zones/{zoneName}/rrsets',
        // The CDN lists: origin groups, resources (for themselves and for their rules; no resource, no rule list).
        'GET /cdn/origin_groups',
        'GET /cdn/resources',
        'GET /cdn/resources',
        // The quota usage: the demo world holds no network, subnet, security group, volume or SSH
        // key, so their lists are not read (issue 33: they were 5 of these 26 requests).
        'GET /cloud/v2/client_quotas',
      ].sort(),
    );
  });

  it('takes the project and region from the flags without listing them', async () => {
    emu.requests.length = 0;
    const result = await edgeform(['import', 'cloud_instance', '--project-id', '1', '--region-id', '76']);
    expect(result.code).toBe(0);
    expect(emu.requests.map((r) => r.path)).toEqual(['/cloud/v1/instances/1/76']);
  });

  it('writes the stack to stdout and nothing else when stdout is not a terminal', async () => {
    const result = await edgeform(['import', 'fastedge_app']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(parse(result.stdout)).toMatchObject({ version: 1, resources: { 'legacy-app': { type: 'fastedge_app', app_id: 1234 }, 'edge-router': { app_id: 1300 } } });
  });

  it('refuses to overwrite an existing --out file unless --force, and writes nothing then', async () => {
    const file = join(tempDir(), 'stack.yaml');
    writeFileSync(file, 'keep me\n');
    const refused = await edgeform(['import', 'streaming_player', '--out', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`--out ${file}: the file exists; refusing to overwrite it (choose another path, or add --force to replace it)`);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    const forced = await edgeform(['import', 'streaming_player', '--out', file, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toBe(`Wrote 2 resources to ${file} (2 streaming_player).\n`);
    expect(Object.keys(blocks(readFileSync(file, 'utf8')))).toEqual(['old-player', 'main-player']);
  });

  it('points the schema line at the edgeform installed in the repository it writes into (a devDependency), and the stack validates', async () => {
    const repo = tempDir();
    mkdirSync(join(repo, '.git'));
    mkdirSync(join(repo, 'node_modules', 'edgeform'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'edgeform', 'edgeform.schema.json'), readFileSync('edgeform.schema.json'));
    mkdirSync(join(repo, 'stacks'));
    const file = join(repo, 'stacks', 'players.yaml');
    const result = await edgeform(['import', 'streaming_player', '--out', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../node_modules/edgeform/edgeform.schema.json');
    expect((await runCliInProcess(['validate', file])).code).toBe(0);
  });

  it('refuses --force without --out', async () => {
    const result = await edgeform(['import', 'streaming_player', '--force']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--force applies only with --out FILE');
  });
});

describe('edgeform import: what it refuses', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { resetEach: false });

  const run = (args: string[]) => runCliInProcess(['import', ...args], { env: { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey } });
  const cases: Array<[string, string[], string]> = [
    ['no kind and no --all', [], 'name a KIND to import (one of cloud_floating_ip, '],
    ['a kind and --all', ['fastedge_app', '--all'], 'give a KIND or --all, not both'],
    ['a check', ['streaming_video_subtitles'], 'streaming_video_subtitles is a check, and checks are not imported'],
    ['the other check', ['streaming_ai_tasks'], 'streaming_ai_tasks is a check, and checks are not imported'],
    ['a misspelt kind', ['cloud_floatingip'], 'unknown resource kind "cloud_floatingip"; did you mean "cloud_floating_ip"?'],
    ['notification settings without a reseller', ['iam_reseller_notification_setting'], 'name one with --reseller-id N'],
    ['a project for an account-wide kind', ['fastedge_app', '--project-id', '1'], '--project-id does not apply to fastedge_app, which is listed for the whole account'],
    ['a reseller for a cloud kind', ['cloud_instance', '--reseller-id', '7'], '--reseller-id does not apply to cloud_instance, which is listed per project and region'],
    ['an id that is not a positive integer', ['cloud_instance', '--project-id', '0'], '--project-id must be a positive integer, got "0"'],
    ['an id that is not a number', ['cloud_instance', '--region-id', 'abc'], '--region-id must be a positive integer, got "abc"'],
    ['an id that is not whole', ['cloud_instance', '--region-id', '7.5'], '--region-id must be a positive integer, got "7.5"'],
    ['a video id that is not a number', ['streaming_video_subtitle', '--video-id', 'abc'], '--video-id must be a positive integer, got "abc"'],
    ['a video for a cloud kind', ['cloud_instance', '--video-id', '9876'], '--video-id does not apply to cloud_instance, which is listed per project and region'],
    ['a project for subtitles', ['streaming_video_subtitle', '--project-id', '1'], '--project-id does not apply to streaming_video_subtitle, which is listed per video'],
  ];

  it.each(cases)('refuses %s with a usage error and sends nothing', async (_name, args, message) => {
    emu.requests.length = 0;
    const result = await run(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('    at ');
    expect(emu.requests).toEqual([]);
  });
});
