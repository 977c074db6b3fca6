import type { z } from 'zod';
import type { CheckAttributes, CheckType, ResourceAttributes, ResourceType } from '../types.js';
import { cloudFloatingIp } from './cloud-floating-ip.js';
import { cloudInstance } from './cloud-instance.js';
import { cloudK8sCluster } from './cloud-k8s-cluster.js';
import { cloudQuotaLimitRequest } from './cloud-quota-limit-request.js';
import { fastedgeApp } from './fastedge-app.js';
import { iamResellerNotificationSetting } from './iam-reseller-notification-setting.js';
import type { KindSpec } from './kind-spec.js';
import { streamingPlayer } from './streaming-player.js';
import { streamingAiTasks } from './streaming-ai-tasks.js';
import { streamingVideoSubtitles } from './streaming-video-subtitles.js';

export type { KindSpec } from './kind-spec.js';

/** Every resource kind's block spec, by type; its `schema` produces ResourceAttributes[T]. */
export const RESOURCE_KINDS = {
  cloud_floating_ip: cloudFloatingIp,
  cloud_instance: cloudInstance,
  cloud_k8s_cluster: cloudK8sCluster,
  fastedge_app: fastedgeApp,
  streaming_player: streamingPlayer,
  iam_reseller_notification_setting: iamResellerNotificationSetting,
  cloud_quota_limit_request: cloudQuotaLimitRequest,
} as const satisfies { [T in ResourceType]: KindSpec };

/** Every check kind's block spec, by type; its `schema` produces CheckAttributes[T]. */
export const CHECK_KINDS = {
  streaming_video_subtitles: streamingVideoSubtitles,
  streaming_ai_tasks: streamingAiTasks,
} as const satisfies { [T in CheckType]: KindSpec };

/** Resource and check kinds together, by type. */
export const ALL_KINDS: Readonly<Record<ResourceType | CheckType, KindSpec>> = { ...RESOURCE_KINDS, ...CHECK_KINDS };

// Compile-time proof that the schemas produce exactly the types the planner consumes.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Output<K> = K extends KindSpec<infer S> ? z.output<S> : never;
const resourceTypesMatch: { [T in ResourceType]: Same<Output<(typeof RESOURCE_KINDS)[T]>, ResourceAttributes[T]> } = {
  cloud_floating_ip: true,
  cloud_instance: true,
  cloud_k8s_cluster: true,
  fastedge_app: true,
  streaming_player: true,
  iam_reseller_notification_setting: true,
  cloud_quota_limit_request: true,
};
const checkTypesMatch: { [T in CheckType]: Same<Output<(typeof CHECK_KINDS)[T]>, CheckAttributes[T]> } = {
  streaming_video_subtitles: true,
  streaming_ai_tasks: true,
};
void resourceTypesMatch;
void checkTypesMatch;
