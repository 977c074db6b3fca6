import { cdnOriginGroup } from './cdn-origin-group/provider.js';
import { cdnResource } from './cdn-resource/provider.js';
import { cdnRule } from './cdn-rule/provider.js';
import { cloudFloatingIp } from './cloud-floating-ip/provider.js';
import { cloudInstance } from './cloud-instance/provider.js';
import { cloudK8sCluster } from './cloud-k8s-cluster/provider.js';
import { cloudLoadBalancer } from './cloud-load-balancer/provider.js';
import { cloudLbL7policy } from './cloud-lb-l7policy/provider.js';
import { cloudLbListener } from './cloud-lb-listener/provider.js';
import { cloudLbPool } from './cloud-lb-pool/provider.js';
import { cloudSecret } from './cloud-secret/provider.js';
import { cloudNetwork } from './cloud-network/provider.js';
import { cloudSubnet } from './cloud-subnet/provider.js';
import { cloudSshKey } from './cloud-ssh-key/provider.js';
import { cloudSecurityGroup } from './cloud-security-group/provider.js';
import { cloudQuotaLimitRequest } from './cloud-quota-limit-request/provider.js';
import { dnsRrset } from './dns-rrset/provider.js';
import { dnsZone } from './dns-zone/provider.js';
import { cloudVolume } from './cloud-volume/provider.js';
import { fastedgeApp } from './fastedge-app/provider.js';
import { iamResellerNotificationSetting } from './iam-reseller-notification-setting/provider.js';
import type { ProviderRegistry } from './provider.js';
import { streamingAiTasks } from './streaming-ai-tasks/provider.js';
import { streamingPlayer } from './streaming-player/provider.js';
import { streamingVideoSubtitle } from './streaming-video-subtitle/provider.js';
import { streamingVideoSubtitles } from './streaming-video-subtitles/provider.js';

/**
 * Every kind's provider, by type. The kinds are those of the registry (registry.ts): the type
 * requires exactly one provider per registered kind, so a kind added there without its provider
 * here (or the other way round) does not compile. This table is kept apart from the registry
 * because the registry is what config/ and plan/ load, and they must not load api/.
 */
export const providers: ProviderRegistry = {
  resources: {
    cloud_floating_ip: cloudFloatingIp,
    cloud_instance: cloudInstance,
    cloud_security_group: cloudSecurityGroup,
    cloud_volume: cloudVolume,
    cloud_k8s_cluster: cloudK8sCluster,
    fastedge_app: fastedgeApp,
    streaming_player: streamingPlayer,
    streaming_video_subtitle: streamingVideoSubtitle,
    iam_reseller_notification_setting: iamResellerNotificationSetting,
    cloud_quota_limit_request: cloudQuotaLimitRequest,
    dns_zone: dnsZone,
    dns_rrset: dnsRrset,
    cdn_origin_group: cdnOriginGroup,
    cdn_resource: cdnResource,
    cdn_rule: cdnRule,
    cloud_network: cloudNetwork,
    cloud_subnet: cloudSubnet,
    cloud_ssh_key: cloudSshKey,
    cloud_load_balancer: cloudLoadBalancer,
    cloud_lb_listener: cloudLbListener,
    cloud_lb_pool: cloudLbPool,
    cloud_lb_l7policy: cloudLbL7policy,
    cloud_secret: cloudSecret,
  },
  checks: {
    streaming_video_subtitles: streamingVideoSubtitles,
    streaming_ai_tasks: streamingAiTasks,
  },
};
