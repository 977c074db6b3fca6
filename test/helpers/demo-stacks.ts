import { DEMO } from './emulator.js';

/** A file or directory of examples/, as a path. */
export const example = (name: string): string => new URL(name, new URL('../../examples/', import.meta.url)).pathname.replace(/\/$/, '');

/** The writes a plan of the demo world sends, as writesSeen lists them. */
export const FIP_PATCH = `PATCH /cloud/v2/floatingips/1/76/${DEMO.fip}`;
export const MEDIA_PATCH = `PATCH /cloud/v2/floatingips/1/76/${DEMO.fipDown}`;
export const RESIZE_POST = `POST /cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`;
export const UPGRADE_POST = 'POST /cloud/v2/k8s/clusters/1/76/prod-eu/upgrade';

/**
 * web_vm and web_ip are ready at once; cluster waits for web_vm and media_ip for web_ip, so an
 * interrupt while the first two run leaves the last two not started, whatever the order.
 */
export const TWO_BRANCHES = `version: 1
defaults: { project_id: 1, region_id: 76 }
resources:
  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8 }
  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: prod, team: edge } }
  cluster: { type: cloud_k8s_cluster, cluster_name: prod-eu, version: v1.30.6, depends_on: [cloud_instance.web_vm] }
  media_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fipDown}, tags_policy: merge, tags: { team: media }, depends_on: [cloud_floating_ip.web_ip] }
`;

/** A stack that matches the demo world exactly (docs/demo-world.md). */
export const IN_SYNC = `version: 1
defaults: { project_id: 1, region_id: 76 }
resources:
  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: staging, team: edge, owner: alice } }
  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-2-4 }
  cluster: { type: cloud_k8s_cluster, cluster_name: prod-eu, version: v1.29.8 }
  router: { type: fastedge_app, app_id: 1300 }
  gone_app: { type: fastedge_app, app_id: 4321, ensure: absent }
checks:
  subtitles: { type: streaming_video_subtitles, video_id: 9876, languages: [eng, ger] }
`;
