import type { z } from 'zod';
import { cdnOriginGroupKind } from './cdn-origin-group/schema.js';
import { cdnResourceKind } from './cdn-resource/schema.js';
import { cdnRuleKind } from './cdn-rule/schema.js';
import { cloudFloatingIpKind } from './cloud-floating-ip/schema.js';
import { cloudInstanceKind } from './cloud-instance/schema.js';
import { cloudLoadBalancerKind } from './cloud-load-balancer/schema.js';
import { cloudLbL7policyKind } from './cloud-lb-l7policy/schema.js';
import { cloudLbListenerKind } from './cloud-lb-listener/schema.js';
import { cloudLbPoolKind } from './cloud-lb-pool/schema.js';
import { cloudSecretKind } from './cloud-secret/schema.js';
import { cloudK8sClusterKind } from './cloud-k8s-cluster/schema.js';
import { cloudNetworkKind } from './cloud-network/schema.js';
import { cloudSubnetKind } from './cloud-subnet/schema.js';
import { cloudSshKeyKind } from './cloud-ssh-key/schema.js';
import { cloudSecurityGroupKind } from './cloud-security-group/schema.js';
import { cloudQuotaLimitRequestKind } from './cloud-quota-limit-request/schema.js';
import { dnsRrsetKind } from './dns-rrset/schema.js';
import { dnsZoneKind } from './dns-zone/schema.js';
import { cloudVolumeKind } from './cloud-volume/schema.js';
import { fastedgeAppKind } from './fastedge-app/schema.js';
import { iamResellerNotificationSettingKind } from './iam-reseller-notification-setting/schema.js';
import type { KindSpec, ZoneRecordsSpec } from './kind-spec.js';
import { streamingAiTasksKind } from './streaming-ai-tasks/schema.js';
import { streamingPlayerKind } from './streaming-player/schema.js';
import { streamingVideoSubtitleKind } from './streaming-video-subtitle/schema.js';
import { streamingVideoSubtitlesKind } from './streaming-video-subtitles/schema.js';

export type { KindSpec } from './kind-spec.js';

/**
 * Every resource kind edgeform knows, by type, in the order the schema, the docs and the
 * messages list them. This object is the one list of resource kinds: every type and list that
 * needs "all kinds" (ResourceType, ResourceAttributes, RESOURCE_TYPES, deletableTypes(), the
 * provider table's keys) is derived from it. It holds only the kinds' schemas, so config/ and
 * plan/ read it without loading a provider.
 */
export const RESOURCE_KINDS = byType('resource', {
  cloud_floating_ip: cloudFloatingIpKind,
  cloud_instance: cloudInstanceKind,
  cloud_network: cloudNetworkKind,
  cloud_subnet: cloudSubnetKind,
  cloud_ssh_key: cloudSshKeyKind,
  cloud_security_group: cloudSecurityGroupKind,
  cloud_volume: cloudVolumeKind,
  cloud_k8s_cluster: cloudK8sClusterKind,
  cloud_secret: cloudSecretKind,
  cloud_load_balancer: cloudLoadBalancerKind,
  cloud_lb_listener: cloudLbListenerKind,
  cloud_lb_pool: cloudLbPoolKind,
  cloud_lb_l7policy: cloudLbL7policyKind,
  fastedge_app: fastedgeAppKind,
  streaming_player: streamingPlayerKind,
  streaming_video_subtitle: streamingVideoSubtitleKind,
  iam_reseller_notification_setting: iamResellerNotificationSettingKind,
  cloud_quota_limit_request: cloudQuotaLimitRequestKind,
  dns_zone: dnsZoneKind,
  dns_rrset: dnsRrsetKind,
  cdn_origin_group: cdnOriginGroupKind,
  cdn_resource: cdnResourceKind,
  cdn_rule: cdnRuleKind,
});

/** Every check kind edgeform knows, by type; the one list of check kinds (see RESOURCE_KINDS). */
export const CHECK_KINDS = byType('check', {
  streaming_video_subtitles: streamingVideoSubtitlesKind,
  streaming_ai_tasks: streamingAiTasksKind,
});

/** Keeps each key equal to its kind's `type` (a kind is found under the name it declares) and each kind in its list. */
function byType<Kind extends 'resource' | 'check', const M extends { [T in keyof M]: KindSpec<z.ZodObject, T & string, Kind> }>(_kind: Kind, kinds: M): M {
  return kinds;
}

/** A resource kind's type, e.g. `cloud_instance`. */
export type ResourceType = keyof typeof RESOURCE_KINDS;

/** A check kind's type, e.g. `streaming_ai_tasks`. */
export type CheckType = keyof typeof CHECK_KINDS;

/** Desired attributes per resource kind, after defaults and ${env:NAME}: what its schema produces. */
export type ResourceAttributes = { [T in ResourceType]: z.output<(typeof RESOURCE_KINDS)[T]['shape']> };

/** Attributes per check kind: what its schema produces. */
export type CheckAttributes = { [T in CheckType]: z.output<(typeof CHECK_KINDS)[T]['shape']> };

/**
 * The kinds edgeform can delete: those whose schema accepts `ensure: absent`. Every other kind
 * (the adopt-only ones) accepts only `ensure: present`, so a plan that deletes one is refused.
 */
export type DeletableType = { [T in ResourceType]: 'absent' extends ResourceAttributes[T]['ensure'] ? T : never }[ResourceType];

/** Resource and check kinds together, by type (resources first). */
export const ALL_KINDS: Readonly<Record<ResourceType | CheckType, KindSpec>> = { ...RESOURCE_KINDS, ...CHECK_KINDS };

/** The platform services edgeform reads and writes, each an API of its own (its base path, its quotas). */
export type Service = 'cloud' | 'dns' | 'cdn' | 'fastedge' | 'streaming' | 'iam';

/**
 * The platform service each kind's resources live in, declared per kind (a kind's type names its
 * family by convention only): what `stacks` groups the places a stack reads by. Every kind is in
 * it, or the registry does not compile.
 */
export const KIND_SERVICE: { readonly [T in ResourceType | CheckType]: Service } = {
  cloud_floating_ip: 'cloud',
  cloud_instance: 'cloud',
  cloud_network: 'cloud',
  cloud_subnet: 'cloud',
  cloud_ssh_key: 'cloud',
  cloud_security_group: 'cloud',
  cloud_volume: 'cloud',
  cloud_k8s_cluster: 'cloud',
  cloud_secret: 'cloud',
  cloud_load_balancer: 'cloud',
  cloud_lb_listener: 'cloud',
  cloud_lb_pool: 'cloud',
  cloud_lb_l7policy: 'cloud',
  fastedge_app: 'fastedge',
  streaming_player: 'streaming',
  streaming_video_subtitle: 'streaming',
  iam_reseller_notification_setting: 'iam',
  cloud_quota_limit_request: 'cloud',
  dns_zone: 'dns',
  dns_rrset: 'dns',
  cdn_origin_group: 'cdn',
  cdn_resource: 'cdn',
  cdn_rule: 'cdn',
  streaming_video_subtitles: 'streaming',
  streaming_ai_tasks: 'streaming',
};

/** Every resource type, in registry order. */
export const RESOURCE_TYPES: readonly ResourceType[] = Object.values(RESOURCE_KINDS).map((kind) => kind.type);

/** Every check type, in registry order. */
export const CHECK_TYPES: readonly CheckType[] = Object.values(CHECK_KINDS).map((kind) => kind.type);

/** Whether a resource type can be deleted (`ensure: absent`), read from its schema. */
export function isDeletable(type: ResourceType): type is DeletableType {
  const ensure: z.ZodType = RESOURCE_KINDS[type].shape.shape.ensure;
  return ensure.safeParse('absent').success;
}

let deletable: readonly DeletableType[] | undefined;

/**
 * The resource types edgeform can delete, in registry order: read from every kind's schema, so
 * only when asked for (a run builds the schemas of the kinds it uses, see defineKind).
 */
export function deletableTypes(): readonly DeletableType[] {
  return (deletable ??= RESOURCE_TYPES.filter(isDeletable));
}

/**
 * The kind a zone file's record sets become blocks of (a file attribute's `zoneFile.records`), with
 * what it tells the zone file loader; an error naming the kind when it declares no `zoneRecords`
 * (a kind's declaration is wrong, not the stack).
 */
export function zoneRecordsKind(type: string): { kind: KindSpec; records: ZoneRecordsSpec } {
  const kind = Object.values(ALL_KINDS).find((k) => k.type === type);
  if (kind?.zoneRecords === undefined) throw new Error(`${type} is named as the kind of a zone file's record sets and declares no zoneRecords`);
  return { kind, records: kind.zoneRecords };
}
