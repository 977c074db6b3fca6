import { cloudFloatingIp } from './cloud-floating-ip.js';
import { cloudInstance } from './cloud-instance.js';
import { cloudK8sCluster } from './cloud-k8s-cluster.js';
import { cloudQuotaLimitRequest } from './cloud-quota-limit-request.js';
import { fastedgeApp } from './fastedge-app.js';
import { iamResellerNotificationSetting } from './iam-reseller-notification-setting.js';
import type { ProviderRegistry } from './provider.js';
import { streamingAiTasks } from './streaming-ai-tasks.js';
import { streamingPlayer } from './streaming-player.js';
import { streamingVideoSubtitles } from './streaming-video-subtitles.js';

/** Every resource and check kind edgeform knows; adding a kind adds one line here. */
export const registry: ProviderRegistry = {
  resources: {
    cloud_floating_ip: cloudFloatingIp,
    cloud_instance: cloudInstance,
    cloud_k8s_cluster: cloudK8sCluster,
    fastedge_app: fastedgeApp,
    streaming_player: streamingPlayer,
    iam_reseller_notification_setting: iamResellerNotificationSetting,
    cloud_quota_limit_request: cloudQuotaLimitRequest,
  },
  checks: {
    streaming_video_subtitles: streamingVideoSubtitles,
    streaming_ai_tasks: streamingAiTasks,
  },
};
