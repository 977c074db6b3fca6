import type { SourceRange } from './diagnostics.js';

/** Resource kinds edgeform manages. */
export const RESOURCE_TYPES = [
  'cloud_floating_ip',
  'cloud_instance',
  'cloud_k8s_cluster',
  'fastedge_app',
  'streaming_player',
  'iam_reseller_notification_setting',
  'cloud_quota_limit_request',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/**
 * The kinds edgeform can delete (`ensure: absent`); it only adopts them by id otherwise. Every
 * other kind accepts only `ensure: present`, so a plan that deletes one is refused.
 */
export const DELETABLE_TYPES = ['fastedge_app', 'streaming_player', 'cloud_quota_limit_request'] as const satisfies readonly ResourceType[];
export type DeletableType = (typeof DELETABLE_TYPES)[number];

/** Read-only assertions evaluated by plan and drift. */
export const CHECK_TYPES = ['streaming_video_subtitles', 'streaming_ai_tasks'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

/** Whether an address (TYPE.NAME) names a check rather than a resource. */
export function isCheckAddress(address: string): boolean {
  return (CHECK_TYPES as readonly string[]).includes(address.split('.')[0]!);
}

export type Ensure = 'present' | 'absent';
export type TagsPolicy = 'authoritative' | 'merge';

/** Desired attributes per kind, after defaults and ${env:NAME} interpolation. */
export interface ResourceAttributes {
  cloud_floating_ip: {
    project_id: number;
    region_id: number;
    floating_ip_id: string;
    /** Absent = tags are not managed. Null values remove a key (merge policy). */
    tags?: Record<string, string | null>;
    tags_policy: TagsPolicy;
    ensure: 'present';
  };
  cloud_instance: {
    project_id: number;
    region_id: number;
    instance_id: string;
    flavor_id: string;
    ensure: 'present';
  };
  cloud_k8s_cluster: {
    project_id: number;
    region_id: number;
    cluster_name: string;
    version: string;
    ensure: 'present';
  };
  fastedge_app: { app_id: number; ensure: Ensure };
  streaming_player: { player_id: number; ensure: Ensure };
  iam_reseller_notification_setting: {
    reseller_id: number;
    notification_settings_id: number;
    notification_type: 'deletion_request' | 'failed_login';
    email: string;
    enabled?: boolean;
    ensure: 'present';
  };
  cloud_quota_limit_request: { request_id: number; ensure: Ensure };
}

export interface CheckAttributes {
  streaming_video_subtitles: { video_id: number; languages: string[] };
  streaming_ai_tasks: {
    where: {
      task_id?: string;
      task_name?: 'transcription' | 'content-moderation';
      status?: 'FAILURE' | 'PENDING' | 'RECEIVED' | 'RETRY' | 'REVOKED' | 'STARTED' | 'SUCCESS';
      date_created?: string;
      search?: string;
    };
    max_count?: number;
    min_count?: number;
  };
}

/** What every block of a stack carries besides its attributes. */
interface BlockBase {
  /** The key under `resources:` or `checks:`. */
  name: string;
  /** TYPE.NAME, unique across the whole stack (resources and checks). */
  address: string;
  /** Addresses this block waits for; validated to exist and to form no cycle. */
  dependsOn: string[];
  /** Where the block's key stands. */
  range: SourceRange;
  /** Range of each attribute's value (top-level attribute name → range), for plan errors. */
  fieldRanges: Record<string, SourceRange>;
}

/** One resource block, discriminated by `type`. */
export type ResourceBlock = {
  [T in ResourceType]: BlockBase & { kind: 'resource'; type: T; attributes: ResourceAttributes[T] };
}[ResourceType];

/** One check block, discriminated by `type`. */
export type CheckBlock = {
  [T in CheckType]: BlockBase & { kind: 'check'; type: T; attributes: CheckAttributes[T] };
}[CheckType];

export type Block = ResourceBlock | CheckBlock;

/** A parsed, validated stack: one file or a directory of *.yaml files merged. */
export interface Stack {
  version: 1;
  /** The files read, in the order they were merged. */
  sources: string[];
  provider: { base_url?: string };
  resources: ResourceBlock[];
  checks: CheckBlock[];
  /** sha256 (hex) of the canonical JSON of the resolved stack; a saved plan records it. */
  digest: string;
}
