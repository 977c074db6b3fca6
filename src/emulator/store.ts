import { createHash } from 'node:crypto';
import type { NormalizedFixtures } from './fixtures.js';
import { parseDate } from './format.js';
import type { MutationKind, MutationLog } from './mutation-log.js';
import type { Tag } from './tags.js';
import { settleTasks, type TaskRecord } from './tasks.js';

/** Where a cloud resource lives. */
export interface Placement {
  project_id: number;
  region_id: number;
  region: string;
}

/** A floating IP as held in memory (API field names; datetimes as epoch ms). */
export interface FloatingIpRecord extends Placement {
  id: string;
  floating_ip_address: string | null;
  fixed_ip_address: string | null;
  port_id: string | null;
  router_id: string | null;
  status: 'ACTIVE' | 'DOWN' | 'ERROR' | null;
  tags: Tag[];
  /** The task holding the lock, or null. */
  task_id: string | null;
  creator_task_id: string | null;
  created_at: number;
  updated_at: number;
  /** Instance shown in the list's `instance` field, when it exists in the emulator. */
  instance_id: string | null;
  /** When set, the next task started on this resource ends in ERROR with this message. */
  next_task_error: string | null;
}

/** A flavor of the catalogue. */
export interface FlavorRecord {
  flavor_id: string;
  flavor_name: string;
  vcpus: number;
  ram: number;
  architecture: string;
  os_type: string;
  disabled: boolean;
}

/** One address of an instance on a network. */
export type InstanceAddress =
  | { addr: string; type: 'floating' }
  | { addr: string; type: 'fixed'; interface_name: string | null; subnet_id?: string | undefined; subnet_name?: string | undefined };

/** An instance as held in memory. */
export interface InstanceRecord extends Placement {
  id: string;
  name: string;
  status: string;
  vm_state: string;
  task_state: string | null;
  task_id: string | null;
  creator_task_id: string | null;
  /** The flavor the instance really has. */
  flavor_id: string;
  /** Flavors changeflavor accepts (the current flavor is listed too). */
  available_flavors: string[];
  tags: Tag[];
  addresses: Record<string, InstanceAddress[]>;
  security_groups: string[];
  ssh_key_name: string | null;
  instance_description: string | null;
  volumes: Array<{ id: string; delete_on_termination: boolean }>;
  created_at: number;
  next_task_error: string | null;
  /** After a resize: GET keeps showing `flavor_id` until emulator time `until` (read lag). */
  stale_flavor: { flavor_id: string; until: number } | null;
}

/** A node pool of a Kubernetes cluster, in API shape. */
export interface K8sPoolRecord {
  id: string;
  name: string;
  flavor_id: string;
  node_count: number;
  min_node_count: number;
  max_node_count: number;
  status: string;
  boot_volume_size: number;
  boot_volume_type: string;
  auto_healing_enabled: boolean;
  is_public_ipv4: boolean;
  labels: Record<string, string>;
  taints: Record<string, string>;
  created_at: number;
}

/** A Kubernetes cluster (v2, addressed by name) as held in memory. */
export interface K8sClusterRecord {
  id: string;
  name: string;
  project_id: number;
  region_id: number;
  version: string;
  status: 'Provisioned' | 'Provisioning' | 'Deleting';
  task_id: string | null;
  creator_task_id: string | null;
  keypair: string;
  is_public: boolean;
  pools: K8sPoolRecord[];
  created_at: number;
  next_task_error: string | null;
}

/** A FastEdge app (app_short fields plus the app's settings). */
export interface FastEdgeAppRecord {
  id: number;
  name: string;
  status: number;
  binary: number;
  plan_id: number;
  plan: string;
  api_type: string;
  url: string;
  comment: string;
  template?: number | undefined;
  template_name?: string | undefined;
  env: Record<string, string>;
  rsp_headers: Record<string, string>;
  networks: string[];
}

/** A streaming player, in API shape. */
export interface PlayerRecord {
  id: number;
  name: string;
  client_id: number;
  [field: string]: unknown;
}

/** A subtitle of a video. */
export interface SubtitleRecord {
  id: number;
  name: string;
  language: string;
  vtt: string;
}

/** A streaming video with its subtitles. */
export interface VideoRecord {
  id: number;
  name: string;
  subtitles: SubtitleRecord[];
}

/** A streaming AI task. `created_at`/`started_at` (epoch ms) drive filtering and ordering. */
export interface AiTaskRecord {
  task_id: string;
  task_name: 'transcription' | 'content-moderation';
  status: string;
  progress: number;
  task_data: Record<string, unknown>;
  created_at: number;
  started_at: number;
}

/** A reseller notification setting (the Read shape). */
export interface NotificationSettingRecord {
  id: number;
  reseller: number;
  notification_type: 'deletion_request' | 'failed_login';
  email: string;
  enabled: boolean;
}

/** A quota limit request. */
export interface QuotaRequestRecord {
  id: number;
  client_id: number;
  status: 'done' | 'in progress' | 'rejected';
  description: string | null;
  requested_limits: { global_limits?: Record<string, number>; regional_limits?: Array<Record<string, number>> };
  created_at: number;
  updated_at: number | null;
}

/** Kinds of cloud resources a task can change. */
export type TaskResourceKind = 'floating_ip' | 'instance' | 'k8s_cluster';

/** Fallback datetime for fixture records without one: 2025-12-01T00:00:00Z. */
const FIXTURE_EPOCH = Date.UTC(2025, 11, 1);

/**
 * The emulator's in-memory platform. Tests read and mutate it directly; `reset()` on the
 * emulator reloads the fixtures into this same object, so references stay valid.
 */
export class EmulatorState {
  readonly floatingIps = new Map<string, FloatingIpRecord>();
  readonly instances = new Map<string, InstanceRecord>();
  /** Keyed by `project_id/region_id/name` (see clusterKey). */
  readonly k8sClusters = new Map<string, K8sClusterRecord>();
  /** The version catalogue upgrade_versions picks from. */
  k8sVersions: string[] = [];
  readonly flavors = new Map<string, FlavorRecord>();
  readonly tasks = new Map<string, TaskRecord>();
  /** Unsettled tasks, sorted by finish time (the settle queue). */
  readonly pendingTasks: TaskRecord[] = [];
  readonly fastedgeApps = new Map<number, FastEdgeAppRecord>();
  readonly players = new Map<number, PlayerRecord>();
  readonly videos = new Map<number, VideoRecord>();
  /** In fixture order. */
  aiTasks: AiTaskRecord[] = [];
  readonly notificationSettings = new Map<number, NotificationSettingRecord>();
  readonly quotaRequests = new Map<number, QuotaRequestRecord>();
  defaults = { project_id: 1, region_id: 76, region: 'Luxembourg 1', user_id: 1, client_id: 1 };
  /** Every change made since the fixtures were loaded, in order (see MutationLogEntry). */
  readonly mutations: MutationLog = [];

  /** Appends a change to the mutation log; routes and the task engine call it when a change takes effect. */
  recordMutation(time: number, kind: MutationKind, id: string | number, change: string, after: Record<string, unknown> = {}, taskId: string | null = null): void {
    this.mutations.push({ time, kind, id: String(id), change, after, taskId });
  }

  /** The key of a cluster in `k8sClusters`. */
  static clusterKey(projectId: number, regionId: number, name: string): string {
    return `${projectId}/${regionId}/${name}`;
  }

  /** Makes the NEXT task started on a resource end in ERROR with `message` (the resource stays unchanged). For clusters `id` is the name or the map key. */
  setNextTaskError(kind: TaskResourceKind, id: string, message: string): void {
    const record = this.findTaskTarget(kind, id);
    if (!record) throw new Error(`no ${kind} ${id} in the emulator state`);
    record.next_task_error = message;
  }

  /** The resource a task kind works on, by id (clusters: name or key). */
  findTaskTarget(kind: TaskResourceKind, id: string): FloatingIpRecord | InstanceRecord | K8sClusterRecord | undefined {
    if (kind === 'floating_ip') return this.floatingIps.get(id);
    if (kind === 'instance') return this.instances.get(id);
    return this.k8sClusters.get(id) ?? [...this.k8sClusters.values()].find((c) => c.name === id);
  }

  /** Applies the effects of every task finished at or before `now`, each exactly once. */
  settle(now: number): void {
    settleTasks(this, now);
  }

  /** Replaces everything with the fixtures' world. */
  load(f: NormalizedFixtures): void {
    for (const map of [this.floatingIps, this.instances, this.k8sClusters, this.flavors, this.tasks, this.fastedgeApps, this.players, this.videos, this.notificationSettings, this.quotaRequests]) {
      map.clear();
    }
    this.pendingTasks.length = 0;
    this.mutations.length = 0;
    this.defaults = { ...f.defaults };
    const d = f.defaults;
    const place = (x: { project_id?: number | undefined; region_id?: number | undefined; region?: string | undefined }): Placement => ({
      project_id: x.project_id ?? d.project_id,
      region_id: x.region_id ?? d.region_id,
      region: x.region ?? d.region,
    });
    const date = (text: string | undefined | null, fallback = FIXTURE_EPOCH): number => (text ? parseDate(text) : fallback);
    const tags = (user: Record<string, string>, readOnly: Record<string, string>): Tag[] => [
      ...Object.entries(user).map(([key, value]) => ({ key, value, read_only: false })),
      ...Object.entries(readOnly).map(([key, value]) => ({ key, value, read_only: true })),
    ];

    this.k8sVersions = [...f.k8s_versions];
    for (const flavor of f.flavors) {
      const derived = deriveFlavor(flavor.flavor_id);
      this.flavors.set(flavor.flavor_id, {
        flavor_id: flavor.flavor_id,
        flavor_name: flavor.flavor_name ?? flavor.flavor_id,
        vcpus: flavor.vcpus ?? derived.vcpus,
        ram: flavor.ram ?? derived.ram,
        architecture: flavor.architecture,
        os_type: flavor.os_type,
        disabled: flavor.disabled,
      });
    }
    for (const x of f.floating_ips) {
      this.floatingIps.set(x.id, {
        id: x.id,
        ...place(x),
        floating_ip_address: x.floating_ip_address,
        fixed_ip_address: x.fixed_ip_address,
        port_id: x.port_id,
        router_id: x.router_id,
        status: x.status,
        tags: tags(x.tags, x.read_only_tags),
        task_id: null,
        creator_task_id: x.creator_task_id ?? stableUuid(`creator-task/${x.id}`),
        created_at: date(x.created_at),
        updated_at: date(x.updated_at ?? x.created_at),
        instance_id: x.instance_id,
        next_task_error: x.next_task_error,
      });
    }
    for (const x of f.instances) {
      const available = x.available_flavors.includes(x.flavor_id) ? [...x.available_flavors] : [x.flavor_id, ...x.available_flavors];
      for (const flavorId of available) this.ensureFlavor(flavorId);
      this.instances.set(x.id, {
        id: x.id,
        ...place(x),
        name: x.name,
        status: x.status,
        vm_state: x.vm_state,
        task_state: null,
        task_id: null,
        creator_task_id: x.creator_task_id ?? stableUuid(`creator-task/${x.id}`),
        flavor_id: x.flavor_id,
        available_flavors: available,
        tags: tags(x.tags, x.read_only_tags),
        addresses: structuredClone(x.addresses) as Record<string, InstanceAddress[]>,
        security_groups: [...x.security_groups],
        ssh_key_name: x.ssh_key_name,
        instance_description: x.instance_description,
        volumes: x.volumes.map((v) => ({ ...v })),
        created_at: date(x.created_at),
        next_task_error: x.next_task_error,
        stale_flavor: null,
      });
    }
    for (const x of f.k8s_clusters) {
      const projectId = x.project_id ?? d.project_id;
      const regionId = x.region_id ?? d.region_id;
      const createdAt = date(x.created_at);
      const pools = x.pools ?? [{ name: `${x.name}-pool-1`, flavor_id: 'g1-standard-2-4', node_count: 2, status: 'Running', boot_volume_size: 50, boot_volume_type: 'standard', auto_healing_enabled: true, is_public_ipv4: false, labels: {}, taints: {} }];
      this.k8sClusters.set(EmulatorState.clusterKey(projectId, regionId, x.name), {
        id: x.id ?? stableUuid(`k8s/${projectId}/${regionId}/${x.name}`),
        name: x.name,
        project_id: projectId,
        region_id: regionId,
        version: x.version.startsWith('v') ? x.version : `v${x.version}`,
        status: x.status,
        task_id: null,
        creator_task_id: x.creator_task_id ?? stableUuid(`creator-task/k8s/${projectId}/${regionId}/${x.name}`),
        keypair: x.keypair,
        is_public: x.is_public,
        pools: pools.map((p) => ({
          id: ('id' in p && p.id) || stableUuid(`k8s-pool/${projectId}/${regionId}/${x.name}/${p.name}`),
          name: p.name,
          flavor_id: p.flavor_id,
          node_count: p.node_count,
          min_node_count: ('min_node_count' in p ? p.min_node_count : undefined) ?? p.node_count,
          max_node_count: ('max_node_count' in p ? p.max_node_count : undefined) ?? Math.max(p.node_count, 1),
          status: p.status,
          boot_volume_size: p.boot_volume_size,
          boot_volume_type: p.boot_volume_type,
          auto_healing_enabled: p.auto_healing_enabled,
          is_public_ipv4: p.is_public_ipv4,
          labels: { ...p.labels },
          taints: { ...p.taints },
          created_at: createdAt,
        })),
        created_at: createdAt,
        next_task_error: x.next_task_error,
      });
    }
    for (const x of f.fastedge_apps) {
      this.fastedgeApps.set(x.id, {
        id: x.id,
        name: x.name,
        status: x.status,
        binary: x.binary,
        plan_id: x.plan_id,
        plan: x.plan,
        api_type: x.api_type,
        url: x.url ?? `https://${x.name}.fastedge.app`,
        comment: x.comment,
        template: x.template,
        template_name: x.template_name,
        env: { ...x.env },
        rsp_headers: { ...x.rsp_headers },
        networks: [...x.networks],
      });
    }
    for (const x of f.streaming_players) {
      const player: PlayerRecord = { client_id: d.client_id, ...x };
      for (const [k, v] of Object.entries(player)) if (v === undefined) delete player[k];
      this.players.set(x.id, player);
    }
    for (const x of f.videos) {
      this.videos.set(x.id, { id: x.id, name: x.name ?? `video-${x.id}`, subtitles: x.subtitles.map((s) => ({ ...s })) });
    }
    this.aiTasks = f.ai_tasks.map((x) => ({
      task_id: x.task_id,
      task_name: x.task_name,
      status: x.status,
      progress: x.progress ?? (x.status === 'SUCCESS' ? 100 : 0),
      task_data: structuredClone(x.task_data),
      created_at: parseDate(x.created_at),
      started_at: parseDate(x.started_at ?? x.created_at),
    }));
    for (const x of f.notification_settings) this.notificationSettings.set(x.id, { ...x });
    for (const x of f.quota_requests) {
      this.quotaRequests.set(x.id, {
        id: x.id,
        client_id: x.client_id ?? d.client_id,
        status: x.status,
        description: x.description,
        requested_limits: structuredClone(x.requested_limits),
        created_at: date(x.created_at),
        updated_at: x.updated_at ? parseDate(x.updated_at) : null,
      });
    }
  }

  /** Adds a flavor derived from its name (`<family>-<vcpus>-<ram GiB>`) unless the catalogue has it. */
  ensureFlavor(flavorId: string): FlavorRecord {
    let flavor = this.flavors.get(flavorId);
    if (!flavor) {
      flavor = { flavor_id: flavorId, flavor_name: flavorId, ...deriveFlavor(flavorId), architecture: 'x86_64', os_type: 'LINUX', disabled: false };
      this.flavors.set(flavorId, flavor);
    }
    return flavor;
  }

  /** A plain-JSON dump of everything (what GET /__emulator/state answers). */
  toJSON(): Record<string, unknown> {
    return {
      defaults: this.defaults,
      floating_ips: [...this.floatingIps.values()],
      instances: [...this.instances.values()],
      k8s_clusters: [...this.k8sClusters.values()],
      k8s_versions: this.k8sVersions,
      flavors: [...this.flavors.values()],
      tasks: [...this.tasks.values()],
      fastedge_apps: [...this.fastedgeApps.values()],
      streaming_players: [...this.players.values()],
      videos: [...this.videos.values()],
      ai_tasks: this.aiTasks,
      notification_settings: [...this.notificationSettings.values()],
      quota_requests: [...this.quotaRequests.values()],
    };
  }
}

/** vCPUs and RAM (MiB) from a flavor name such as g2-standard-4-8; 1 vCPU / 1024 MiB otherwise. */
function deriveFlavor(flavorId: string): { vcpus: number; ram: number } {
  const m = /-(\d+)-(\d+(?:\.\d+)?)$/.exec(flavorId);
  if (!m) return { vcpus: 1, ram: 1024 };
  return { vcpus: Number(m[1]), ram: Math.round(Number(m[2]) * 1024) };
}

/** A UUID derived from a name, so fixture records without ids keep the same id across resets. */
function stableUuid(name: string): string {
  const h = createHash('sha1').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
