import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { EdgeformError } from '../errors.js';
import { FAULT_SETTINGS, MAX_SEED, type FaultFixtureKey } from './options.js';
import { UUID_PATTERN, parseDate } from './format.js';

/** Absolute path of examples/emulator/fixtures.yaml, the demo world (docs/demo-world.md). */
export const demoFixturesPath: string = fileURLToPath(
  new URL(import.meta.url.includes('/dist/src/emulator/') ? '../../../examples/emulator/fixtures.yaml' : '../../examples/emulator/fixtures.yaml', import.meta.url),
);

/** Thrown when a fixtures file cannot be read, is not YAML, or does not match the fixture format. */
export class EmulatorFixturesError extends EdgeformError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('EDGEFORM_EMULATOR_FIXTURES', message, options);
  }
}

const uuid = z.string().regex(UUID_PATTERN, 'must be a UUID');
const int = z.number().int();
const positiveInt = int.min(1);
const datetime = z.string().refine((s) => !Number.isNaN(parseDate(s)), 'must be an ISO 8601 datetime, e.g. 2026-01-01T00:00:00Z');
const tagMap = z.record(z.string().regex(/^[^\s=]{1,255}$/, 'tag keys are 1–255 characters without whitespace or "="'), z.string().min(1).max(255));
const nextTaskError = z.string().min(1).nullable().default(null);
const version = z.string().regex(/^v?\d+\.\d+\.\d+$/, 'must be a version like v1.29.8');

const placement = {
  project_id: int.optional(),
  region_id: int.optional(),
  region: z.string().optional(),
};

const flavorSchema = z.strictObject({
  flavor_id: z.string().min(1),
  flavor_name: z.string().optional(),
  vcpus: positiveInt.optional(),
  ram: positiveInt.optional(),
  architecture: z.string().default('x86_64'),
  os_type: z.string().default('LINUX'),
  disabled: z.boolean().default(false),
});

const floatingIpSchema = z.strictObject({
  id: uuid,
  ...placement,
  floating_ip_address: z.string().nullable().default(null),
  fixed_ip_address: z.string().nullable().default(null),
  port_id: uuid.nullable().default(null),
  router_id: uuid.nullable().default(null),
  status: z.enum(['ACTIVE', 'DOWN', 'ERROR']).default('DOWN'),
  tags: tagMap.default({}),
  read_only_tags: tagMap.default({}),
  instance_id: uuid.nullable().default(null),
  creator_task_id: uuid.nullable().default(null),
  created_at: datetime.optional(),
  updated_at: datetime.optional(),
  next_task_error: nextTaskError,
});

const instanceStatuses = ['ACTIVE', 'BUILD', 'DELETED', 'ERROR', 'HARD_REBOOT', 'MIGRATING', 'PASSWORD', 'PAUSED', 'REBOOT', 'REBUILD', 'RESCUE', 'RESIZE', 'REVERT_RESIZE', 'SHELVED', 'SHELVED_OFFLOADED', 'SHUTOFF', 'SOFT_DELETED', 'SUSPENDED', 'UNKNOWN', 'VERIFY_RESIZE'] as const;
const vmStates = ['active', 'building', 'deleted', 'error', 'paused', 'rescued', 'resized', 'shelved', 'shelved_offloaded', 'soft-deleted', 'stopped', 'suspended'] as const;

const addressSchema = z.union([
  z.strictObject({ addr: z.string(), type: z.literal('floating') }),
  z.strictObject({ addr: z.string(), type: z.literal('fixed'), interface_name: z.string().nullable().default(null), subnet_id: z.string().optional(), subnet_name: z.string().optional() }),
]);

const instanceSchema = z.strictObject({
  id: uuid,
  ...placement,
  name: z.string().min(1),
  status: z.enum(instanceStatuses).default('ACTIVE'),
  vm_state: z.enum(vmStates).default('active'),
  flavor_id: z.string().min(1),
  available_flavors: z.array(z.string().min(1)).default([]),
  tags: tagMap.default({}),
  read_only_tags: tagMap.default({}),
  addresses: z.record(z.string(), z.array(addressSchema)).default({}),
  security_groups: z.array(z.string()).default(['default']),
  ssh_key_name: z.string().nullable().default(null),
  instance_description: z.string().nullable().default(null),
  volumes: z.array(z.strictObject({ id: z.string(), delete_on_termination: z.boolean().default(false) })).default([]),
  creator_task_id: uuid.nullable().default(null),
  created_at: datetime.optional(),
  next_task_error: nextTaskError,
});

const poolSchema = z.strictObject({
  id: uuid.optional(),
  name: z.string().min(1),
  flavor_id: z.string().min(1),
  node_count: int.min(0).default(1),
  min_node_count: int.min(0).optional(),
  max_node_count: int.min(0).optional(),
  status: z.string().default('Running'),
  boot_volume_size: positiveInt.default(50),
  boot_volume_type: z.string().default('standard'),
  auto_healing_enabled: z.boolean().default(true),
  is_public_ipv4: z.boolean().default(false),
  labels: z.record(z.string(), z.string()).default({}),
  taints: z.record(z.string(), z.string()).default({}),
});

const clusterSchema = z.strictObject({
  name: z.string().min(1),
  id: uuid.optional(),
  project_id: int.optional(),
  region_id: int.optional(),
  version,
  status: z.enum(['Provisioned', 'Provisioning', 'Deleting']).default('Provisioned'),
  keypair: z.string().default('default'),
  is_public: z.boolean().default(true),
  pools: z.array(poolSchema).optional(),
  created_at: datetime.optional(),
  creator_task_id: uuid.nullable().default(null),
  next_task_error: nextTaskError,
});

const appSchema = z.strictObject({
  id: positiveInt,
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/, 'app names are lowercase letters, digits and dashes').max(64),
  status: int.min(0).max(5).default(1),
  binary: positiveInt.default(1),
  plan_id: positiveInt.default(1),
  plan: z.string().default('basic'),
  api_type: z.enum(['wasi-http', 'proxy-wasm']).default('wasi-http'),
  url: z.string().optional(),
  comment: z.string().max(1024).default(''),
  template: positiveInt.optional(),
  template_name: z.string().optional(),
  env: z.record(z.string(), z.string()).default({}),
  rsp_headers: z.record(z.string(), z.string()).default({}),
  networks: z.array(z.string()).default([]),
});

const playerSchema = z.strictObject({
  id: positiveInt,
  name: z.string().min(1),
  client_id: positiveInt.optional(),
  framework: z.string().optional(),
  design: z.string().optional(),
  custom_css: z.string().optional(),
  js_url: z.string().optional(),
  skin_is_url: z.string().optional(),
  bg_color: z.string().optional(),
  fg_color: z.string().optional(),
  text_color: z.string().optional(),
  hover_color: z.string().optional(),
  autoplay: z.boolean().default(false),
  mute: z.boolean().default(false),
  disable_skin: z.boolean().default(false),
  save_options_to_cookies: z.boolean().default(true),
  show_sharing: z.boolean().default(true),
  logo_position: z.enum(['tl', 'tr', 'bl', 'br']).optional(),
  speed_control: z.boolean().default(false),
  logo: z.string().optional(),
});

const videoSchema = z.strictObject({
  id: positiveInt,
  name: z.string().optional(),
  subtitles: z
    .array(
      z.strictObject({
        id: positiveInt,
        name: z.string().default(''),
        language: z.string().regex(/^[a-z]{3}$/, 'languages are 3-letter ISO 639-2 codes such as eng'),
        vtt: z.string().default('WEBVTT\n'),
      }),
    )
    .default([]),
});

/** AI task statuses; RECEIVED is accepted as a filter value by the platform too. */
export const AI_TASK_STATUSES = ['FAILURE', 'PENDING', 'RECEIVED', 'RETRY', 'REVOKED', 'STARTED', 'SUCCESS'] as const;

const aiTaskSchema = z.strictObject({
  task_id: uuid,
  task_name: z.enum(['transcription', 'content-moderation']),
  status: z.enum(AI_TASK_STATUSES),
  progress: int.min(0).max(100).optional(),
  task_data: z.record(z.string(), z.unknown()).default({}),
  created_at: datetime,
  started_at: datetime.optional(),
});

const notificationSettingSchema = z.strictObject({
  id: positiveInt,
  reseller: positiveInt,
  notification_type: z.enum(['deletion_request', 'failed_login']),
  email: z.string().max(254),
  enabled: z.boolean().default(true),
});

const quotaRequestSchema = z.strictObject({
  id: positiveInt,
  client_id: positiveInt.optional(),
  status: z.enum(['done', 'in progress', 'rejected']),
  description: z.string().nullable().default(null),
  requested_limits: z
    .strictObject({
      global_limits: z.record(z.string(), int).optional(),
      regional_limits: z.array(z.record(z.string(), int)).optional(),
    })
    .default({}),
  created_at: datetime.optional(),
  updated_at: datetime.nullable().default(null),
});

const pathRule = { method: z.string().optional(), path: z.string().startsWith('/') };

// The fault settings of NUMERIC_OPTIONS by their fixtures keys: milliseconds as whole numbers, shares 0..1.
const faultSettingsShape = Object.fromEntries(
  FAULT_SETTINGS.map(({ fixture, share }) => [fixture, (share ? z.number().min(0).max(1) : int.min(0)).optional()]),
) as Record<FaultFixtureKey, z.ZodOptional<z.ZodNumber>>;

const faultsSchema = z.strictObject({
  ...faultSettingsShape,
  seed: int.min(0).max(MAX_SEED).optional(),
  fail_next: z
    .array(z.strictObject({ ...pathRule, status: int.min(100).max(599), count: positiveInt.optional(), retry_after: int.min(0).optional() }))
    .default([]),
  drop_next: z.array(z.strictObject({ ...pathRule, when: z.enum(['before', 'after']) })).default([]),
});

const fixturesSchema = z.strictObject({
  defaults: z
    .strictObject({
      project_id: int.default(1),
      region_id: int.default(76),
      region: z.string().default('Luxembourg 1'),
      user_id: positiveInt.default(1),
      client_id: positiveInt.default(1),
    })
    .default({ project_id: 1, region_id: 76, region: 'Luxembourg 1', user_id: 1, client_id: 1 }),
  k8s_versions: z.array(version).default([]),
  flavors: z.array(flavorSchema).default([]),
  floating_ips: z.array(floatingIpSchema).default([]),
  instances: z.array(instanceSchema).default([]),
  k8s_clusters: z.array(clusterSchema).default([]),
  fastedge_apps: z.array(appSchema).default([]),
  streaming_players: z.array(playerSchema).default([]),
  videos: z.array(videoSchema).default([]),
  ai_tasks: z.array(aiTaskSchema).default([]),
  notification_settings: z.array(notificationSettingSchema).default([]),
  quota_requests: z.array(quotaRequestSchema).default([]),
  faults: faultsSchema.optional(),
});

/** The fixture format as written (YAML file or object): every section optional. See docs/emulator.md. */
export type EmulatorFixtures = z.input<typeof fixturesSchema>;

/** Fixtures after validation, with every default filled in. */
export type NormalizedFixtures = z.output<typeof fixturesSchema>;


/**
 * Loads and validates fixtures from a YAML file path or an object of the same shape. Errors
 * name the file, the path inside it and the problem, e.g.
 * `fixtures.yaml: floating_ips[0].status: Invalid option: expected one of "ACTIVE"|"DOWN"|"ERROR"`.
 */
export function loadFixtures(source: string | EmulatorFixtures | undefined): NormalizedFixtures {
  if (source === undefined) return validateFixtures({}, 'fixtures');
  if (typeof source !== 'string') return validateFixtures(source, 'fixtures');
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (error) {
    throw new EmulatorFixturesError(`cannot read fixtures file ${source}: ${(error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new EmulatorFixturesError(`${source}: not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  return validateFixtures(data ?? {}, source);
}

function validateFixtures(data: unknown, label: string): NormalizedFixtures {
  const parsed = fixturesSchema.safeParse(data);
  if (!parsed.success) {
    const lines = parsed.error.issues.slice(0, 10).map((issue) => `${label}: ${formatPath(issue.path)}: ${issue.message}`);
    throw new EmulatorFixturesError(`invalid emulator fixtures:\n  ${lines.join('\n  ')}`);
  }
  const f = parsed.data;
  const duplicates = [
    findDuplicate('floating_ips', f.floating_ips.map((x) => x.id)),
    findDuplicate('instances', f.instances.map((x) => x.id)),
    findDuplicate('k8s_clusters', f.k8s_clusters.map((x) => `${x.project_id ?? f.defaults.project_id}/${x.region_id ?? f.defaults.region_id}/${x.name}`)),
    findDuplicate('fastedge_apps', f.fastedge_apps.map((x) => x.id)),
    findDuplicate('streaming_players', f.streaming_players.map((x) => x.id)),
    findDuplicate('videos', f.videos.map((x) => x.id)),
    findDuplicate('ai_tasks', f.ai_tasks.map((x) => x.task_id)),
    findDuplicate('notification_settings', f.notification_settings.map((x) => x.id)),
    findDuplicate('quota_requests', f.quota_requests.map((x) => x.id)),
  ].filter((x): x is string => x !== undefined);
  if (duplicates.length > 0) throw new EmulatorFixturesError(`invalid emulator fixtures:\n  ${duplicates.map((d) => `${label}: ${d}`).join('\n  ')}`);
  return f;
}

function findDuplicate(section: string, ids: Array<string | number>): string | undefined {
  const seen = new Set<string | number>();
  for (const [index, id] of ids.entries()) {
    if (seen.has(id)) return `${section}[${index}]: duplicate id ${JSON.stringify(id)}`;
    seen.add(id);
  }
  return undefined;
}

function formatPath(path: PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}
