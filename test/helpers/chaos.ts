import { createApiClient, type ApiClient } from '../../src/api/client.js';
import type { RetryQuota, RetryPolicy } from '../../src/api/retry.js';
import type { Sleep } from '../../src/api/sleep.js';
import { CONFIRM_POLICY, type ConfirmPolicy } from '../../src/apply/executor.js';
import type { ApplyOutcome } from '../../src/apply/outcome.js';
import type { Emulator, EmulatorFixtures, MutationKind, MutationLogEntry } from '../../src/emulator/index.js';
import { canonicalJson } from '../../src/model/fingerprint.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { createProviderContext } from '../../src/kinds/context.js';
import type { ProviderContext } from '../../src/kinds/provider.js';
import { canonicalName, ownerName } from '../../src/kinds/dns-names.js';

/**
 * A generated world for chaos tests: emulator fixtures and a stack of 200 resources over every
 * resource kind, with updates (tags, resizes, one- and two-step upgrades, settings), deletes,
 * resources already as desired and already gone, and dependencies (a cluster on an instance, a
 * setting on a floating IP) so that failures skip dependants.
 */
export interface ChaosWorld {
  fixtures: EmulatorFixtures;
  /** The stack file's text. */
  yaml: string;
  /** Resources in the stack. */
  size: number;
}

const id = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const FLAVORS = ['g2-standard-2-4', 'g2-standard-4-8', 'g2-standard-8-16'];

/** Builds the chaos world: 50 floating IPs, 35 instances (25 resized, 5 deleted, 5 created with a floating IP by reference), 25 clusters, 20 settings, 20 each of apps, players, quota requests, 10 subtitles, 3 networks, 3 subnets, 2 SSH keys, a load balancer with two listeners, two pools and a secret, a DNS zone with 12 record sets, CDN origin groups, resources and rules. */
export function chaosWorld(): ChaosWorld {
  const floating_ips: Record<string, unknown>[] = [];
  const instances: Record<string, unknown>[] = [];
  const k8s_clusters: Record<string, unknown>[] = [];
  const notification_settings: Record<string, unknown>[] = [];
  const fastedge_apps: Record<string, unknown>[] = [];
  const streaming_players: Record<string, unknown>[] = [];
  const quota_requests: Record<string, unknown>[] = [];
  const videos: Record<string, unknown>[] = [];
  const blocks: string[] = [];
  const block = (name: string, fields: Record<string, unknown>) => blocks.push(`  ${name}: ${JSON.stringify(fields)}`);

  for (let i = 1; i <= 50; i++) {
    const tags = { env: 'staging', team: `t${i % 3}`, owner: `o${i}` };
    floating_ips.push({ id: id('1f000000', i), floating_ip_address: `198.51.100.${i}`, tags, ...(i % 5 === 0 ? { read_only_tags: { 'managed-by': 'platform' } } : {}) });
    const desired =
      i % 5 === 0
        ? { tags } // already as desired
        : i % 10 === 7
          ? { tags: {} } // every user tag removed: the patch is null
          : i % 4 === 1
            ? { tags_policy: 'merge', tags: { owner: null, tier: 'gold' } }
            : { tags: { env: 'prod', team: `t${i % 3}` } };
    block(`ip_${i}`, { type: 'cloud_floating_ip', floating_ip_id: id('1f000000', i), ...desired });
  }
  // --- cloud_instance (vm branch): 25 adopted and resized (clusters depend on them), 5 deleted, 5 created with references. ---
  for (let i = 1; i <= 30; i++) {
    instances.push({ id: id('2a000000', i), name: `vm-${i}`, status: 'ACTIVE', flavor_id: FLAVORS[0], available_flavors: FLAVORS });
    if (i > 25) block(`vm_${i}`, { type: 'cloud_instance', instance_id: id('2a000000', i), flavor_id: FLAVORS[0], ensure: 'absent' });
    else block(`vm_${i}`, { type: 'cloud_instance', instance_id: id('2a000000', i), flavor_id: i % 7 === 0 ? FLAVORS[0] : FLAVORS[1 + (i % 2)] });
  }
  for (let i = 31; i <= 35; i++) {
    // Created and found by its ownership tags; its interface takes the floating IP of ip_i by reference (a dependency).
    block(`vm_${i}`, {
      type: 'cloud_instance',
      name: `new-vm-${i}`,
      flavor_id: FLAVORS[0],
      image_id: id('2b000000', 1),
      interfaces: [{ type: 'subnet', network_id: id('2c000000', 1), subnet_id: id('2d000000', 1), floating_ip_id: `\${cloud_floating_ip.ip_${i}.id}` }],
      tags: { wave: 'chaos' },
    });
  }
  // --- end of cloud_instance (vm branch) ---
  for (let i = 1; i <= 25; i++) {
    k8s_clusters.push({ name: `cluster-${i}`, version: 'v1.29.8', status: 'Provisioned' });
    const version = i % 8 === 0 ? 'v1.29.8' : i % 3 === 0 ? 'v1.31.3' : 'v1.30.6';
    block(`cluster_${i}`, { type: 'cloud_k8s_cluster', cluster_name: `cluster-${i}`, version, depends_on: [`cloud_instance.vm_${i}`] });
  }
  for (let i = 1; i <= 20; i++) {
    const type = i % 2 === 0 ? 'failed_login' : 'deletion_request';
    notification_settings.push({ id: 100 + i, reseller: 7, notification_type: type, email: `ops${i}@example.com`, enabled: false });
    const wanted = i % 6 === 0 ? { email: `ops${i}@example.com`, enabled: false } : { email: `sec${i}@example.com`, enabled: true };
    block(`alerts_${i}`, {
      type: 'iam_reseller_notification_setting',
      reseller_id: 7,
      notification_settings_id: 100 + i,
      notification_type: type,
      ...wanted,
      depends_on: [`cloud_floating_ip.ip_${i}`],
    });
  }
  for (let i = 1; i <= 20; i++) {
    // Every 5th is kept (adopted as it is); every 10th from 3 is already gone.
    const ensure = i % 5 === 0 ? 'present' : 'absent';
    const seeded = i % 10 !== 3;
    if (seeded) {
      fastedge_apps.push({ id: 2000 + i, name: `app-${i}` });
      streaming_players.push({ id: 500 + i, name: `player-${i}` });
      quota_requests.push({ id: 900 + i, status: 'in progress', description: `request ${i}`, requested_limits: { regional_limits: [{ region_id: 76, cpu_count_limit: 8 * i }] } });
    }
    block(`app_${i}`, { type: 'fastedge_app', app_id: 2000 + i, ensure });
    block(`player_${i}`, { type: 'streaming_player', player_id: 500 + i, ensure, ...(i % 2 === 0 ? { depends_on: [`fastedge_app.app_${i}`] } : {}) });
    block(`quota_${i}`, { type: 'cloud_quota_limit_request', request_id: 900 + i, ensure });
  }
  for (let i = 1; i <= 10; i++) {
    // Every 5th is kept as it is; every 4th from 1 is deleted; the others get new text.
    const vtt = `WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nline ${i}\n`;
    videos.push({ id: 7000 + i, subtitles: [{ id: 8000 + i, name: `English ${i}`, language: 'eng', vtt }] });
    const wanted = i % 5 === 0 ? { vtt } : i % 4 === 1 ? { ensure: 'absent' } : { vtt: vtt.replace(`line ${i}`, `new line ${i}`) };
    block(`subtitle_${i}`, { type: 'streaming_video_subtitle', video_id: 7000 + i, subtitle_id: 8000 + i, language: 'eng', ...wanted });
  }
  const dns = dnsChaosPart();
  blocks.push(...dns.blocks);
  const cdn = cdnChaosPart();
  blocks.push(...cdn.blocks);
  // --- net (issue 22): networks, subnets and SSH keys, adopted as they are (no-ops) ---
  const networks: Record<string, unknown>[] = [];
  const subnets: Record<string, unknown>[] = [];
  const ssh_keys: Record<string, unknown>[] = [];
  for (let i = 1; i <= 3; i++) {
    networks.push({ id: id('3e000000', i), name: `net-${i}`, tags: { env: 'staging' } });
    subnets.push({ id: id('3f000000', i), name: `subnet-${i}`, network_id: id('3e000000', i), cidr: `10.${i}.0.0/24` });
    block(`net_${i}`, { type: 'cloud_network', network_id: id('3e000000', i), name: `net-${i}`, tags: { env: 'staging' } });
    block(`subnet_${i}`, { type: 'cloud_subnet', subnet_id: id('3f000000', i), network_id: `\${cloud_network.net_${i}.id}`, cidr: `10.${i}.0.0/24` });
  }
  for (let i = 1; i <= 2; i++) {
    const key = [
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILGCMcs7ZtF7TfYiAv0HJvqzMsyVFPkV6e8MLCALgTbj',
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEZMPu+JqxgKHxVqkzwJNlR59IjIDogEwInP20Rpo/NV',
    ][i - 1];
    ssh_keys.push({ id: id('3d000000', i), name: `key-${i}`, public_key: key });
    block(`key_${i}`, { type: 'cloud_ssh_key', name: `key-${i}`, public_key: key });
  }
  // --- end net ---
  // --- security groups and volumes (issue 22): groups adopted as they are; volumes kept, extended (a task) or deleted (a task) ---
  const security_groups: Record<string, unknown>[] = [];
  const volumes: Record<string, unknown>[] = [];
  for (let i = 1; i <= 2; i++) {
    security_groups.push({ id: id('3c000000', i), name: `sg-${i}` });
    block(`sg_${i}`, { type: 'cloud_security_group', security_group_id: id('3c000000', i), name: `sg-${i}` });
  }
  for (let i = 1; i <= 6; i++) {
    volumes.push({ id: id('3b000000', i), name: `vol-${i}`, size: 10 });
    const wanted = i % 3 === 0 ? { ensure: 'absent' } : i % 3 === 2 ? { size: 10 + i } : { size: 10 };
    block(`vol_${i}`, { type: 'cloud_volume', volume_id: id('3b000000', i), name: `vol-${i}`, ...wanted });
  }
  // --- end security groups and volumes ---
  const lb = lbChaosPart();
  blocks.push(...lb.blocks);
  // The network and subnet the created instances' interfaces are on (vm branch), outside the stack.
  networks.push({ id: id('2c000000', 1), name: 'chaos-net' });
  subnets.push({ id: id('2d000000', 1), name: 'chaos-subnet', network_id: id('2c000000', 1), cidr: '10.0.0.0/16' });
  return {
    fixtures: {
      dns_zones: dns.zones,
      ...cdn.fixtures,
      networks,
      subnets,
      ssh_keys,
      // The image the created instances boot from.
      images: [{ id: id('2b000000', 1), name: 'chaos-image' }],
      security_groups,
      volumes,
      ...lb.fixtures,
      videos,
      k8s_versions: ['v1.28.9', 'v1.29.8', 'v1.30.6', 'v1.31.3', 'v1.32.1'],
      floating_ips,
      instances,
      k8s_clusters,
      notification_settings,
      fastedge_apps,
      streaming_players,
      quota_requests,
    } as EmulatorFixtures,
    // Named: resources it creates carry the stack's ownership tags.
    yaml: `version: 1\nname: chaos\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n${blocks.join('\n')}\n`,
    size: blocks.length,
  };
}

// ---- DNS (issue 21): zones and record sets in the chaos world. Kept in this one function (and
// the dns_* cases of emulatorResource and expectedMutations) so other kinds' additions merge apart.
/**
 * One zone kept as it is and 12 record sets in it: every 3rd from 1 replaced (another record and
 * TTL, by PUT), every 4th from 2 deleted, the others declared as they are (in other spellings).
 */
function dnsChaosPart(): { zones: Record<string, unknown>[]; blocks: string[] } {
  const blocks: string[] = [];
  const rrsets: Record<string, unknown>[] = [];
  blocks.push(`  zone_chaos: ${JSON.stringify({ type: 'dns_zone', name: 'chaos.example', nx_ttl: 300 })}`);
  for (let i = 1; i <= 12; i++) {
    rrsets.push({ name: `host-${i}`, type: 'A', ttl: 60, resource_records: [{ content: [`192.0.2.${i}`] }] });
    const wanted =
      i % 4 === 2
        ? { ttl: 60, resource_records: [{ content: [`192.0.2.${i}`] }], ensure: 'absent' }
        : i % 3 === 1
          ? { ttl: 120, resource_records: [{ content: [`192.0.2.${i}`] }, { content: [`198.51.100.${i}`] }] }
          : { ttl: 60, resource_records: [{ content: [` 192.0.2.${i} `] }] };
    blocks.push(`  rr_${i}: ${JSON.stringify({ type: 'dns_rrset', zone: 'chaos.example', name: `HOST-${i}.chaos.example.`, record_type: 'A', ...wanted })}`);
  }
  return { zones: [{ name: 'chaos.example', nx_ttl: 300, rrsets }], blocks };
}
// ---- end of DNS

/** The environment the chaos world's S3 origin takes its keys from (the chaos run sets it). */
export const CHAOS_S3_ENV = { CHAOS_S3_KEY_ID: 'CHAOSKEYID0000000001', CHAOS_S3_SECRET: 'chaos/S3/secret+0000000000000001' };

// ---- CDN (issue 23): origin groups, resources and rules in the chaos world, kept in this one
// function (and the cdn_* cases of emulatorResource and expectedMutations).
/**
 * Three origin groups kept as they are; six CDN resources (every 3rd from 1 kept, every 3rd from 2
 * given a new description, every 3rd deactivated and deleted); two rules on each kept or changed
 * resource (the first kept, the second of an even resource deleted after deactivation, of an odd
 * one given a new weight). A deleted resource's rules go with it (the emulator deletes them).
 */
function cdnChaosPart(): { fixtures: Record<string, unknown[]>; blocks: string[] } {
  const blocks: string[] = [];
  const block = (name: string, fields: Record<string, unknown>) => blocks.push(`  ${name}: ${JSON.stringify(fields)}`);
  const groups: Record<string, unknown>[] = [];
  const resources: Record<string, unknown>[] = [];
  const rules: Record<string, unknown>[] = [];
  for (let g = 1; g <= 3; g++) {
    // The third group also has an S3 origin, its keys from the environment (CHAOS_S3_ENV): write-only, so kept as it is.
    const s3 = { type: 'amazon', bucket_name: `chaos-bucket-${g}`, region: 'eu-west-1' };
    const config = {
      s3_type: s3.type,
      s3_bucket_name: s3.bucket_name,
      s3_region: s3.region,
      s3_access_key_id: CHAOS_S3_ENV.CHAOS_S3_KEY_ID,
      s3_secret_access_key: CHAOS_S3_ENV.CHAOS_S3_SECRET,
    };
    const withS3 = g === 3;
    groups.push({ id: g, name: `chaos-origins-${g}`, sources: [{ source: `origin-${g}.chaos.example` }, ...(withS3 ? [{ origin_type: 's3', config, backup: true }] : [])] });
    const keys = { access_key_id: '${env:CHAOS_S3_KEY_ID}', secret_access_key: '${env:CHAOS_S3_SECRET}' };
    const origins = [{ source: `origin-${g}.chaos.example` }, ...(withS3 ? [{ s3: { ...s3, ...keys }, backup: true }] : [])];
    block(`og_${g}`, { type: 'cdn_origin_group', origin_group_id: g, name: `chaos-origins-${g}`, origins });
  }
  for (let i = 1; i <= 6; i++) {
    const cname = `cdn-${i}.chaos.example`;
    resources.push({ id: i, cname, originGroup: 1 + (i % 3), description: `site ${i}` });
    const wanted = i % 3 === 0 ? { ensure: 'absent' } : i % 3 === 2 ? { description: `site ${i}, renewed` } : { description: `site ${i}` };
    block(`site_${i}`, { type: 'cdn_resource', resource_id: i, cname, origin_group: 1 + (i % 3), ...wanted });
    for (let r = 1; r <= 2; r++) {
      const id = 10 * i + r;
      rules.push({ id, resource: i, name: `rule-${r}`, rule: `/r${r}/.*`, ruleType: 0, weight: r });
      if (i % 3 === 0) continue;
      const rule = r === 1 ? { weight: r } : i % 2 === 0 ? { ensure: 'absent' } : { weight: 5 };
      block(`site_${i}_rule_${r}`, { type: 'cdn_rule', rule_id: id, resource_id: i, name: `rule-${r}`, ...rule });
    }
  }
  return { fixtures: { cdn_origin_groups: groups, cdn_resources: resources, cdn_rules: rules }, blocks };
}
// ---- end of CDN

// ---- load balancers (issue 34): a secret, a balancer with two listeners, one with a pool, in the
// chaos world; kept in this one function (and the load balancer cases of emulatorResource and
// expectedMutations).

/** The chaos world's load balancer part: a secret and a balancer adopted as they are, a listener found by name as it is with its pool, another whose connection limit changes, and its pool gaining a member (both writes on the one balancer). */
function lbChaosPart(): { fixtures: Pick<EmulatorFixtures, 'load_balancers' | 'secrets'>; blocks: string[] } {
  const blocks: string[] = [];
  const block = (name: string, fields: Record<string, unknown>) => blocks.push(`  ${name}: ${JSON.stringify(fields)}`);
  const lbId = id('4a000000', 1);
  const secretId = id('4b000000', 1);
  const members = [{ address: '10.0.0.10', protocol_port: 8080 }];
  const fixtures = {
    secrets: [{ id: secretId, name: 'chaos-cert' }],
    load_balancers: [
      {
        id: lbId,
        name: 'chaos-lb',
        flavor: 'lb1-1-2',
        tags: { env: 'staging' },
        listeners: [
          {
            id: id('4c000000', 1),
            name: 'chaos-http',
            protocol: 'HTTP',
            protocol_port: 80,
            pool: { name: 'chaos-http-pool', protocol: 'HTTP', members: [{ address: '10.0.0.12', protocol_port: 80 }] },
            l7_policies: [
              {
                name: 'chaos-to-https',
                action: 'REDIRECT_PREFIX',
                redirect_prefix: 'https://chaos.example',
                redirect_http_code: 302,
                rules: [{ type: 'PATH', compare_type: 'STARTS_WITH', value: '/' }],
              },
            ],
          },
          {
            name: 'chaos-https',
            protocol: 'TERMINATED_HTTPS',
            protocol_port: 443,
            secret_id: secretId,
            pool: { name: 'chaos-pool', protocol: 'HTTP', members },
            l7_policies: [{ name: 'chaos-reject-bots', action: 'REJECT', rules: [{ type: 'HEADER', compare_type: 'CONTAINS', key: 'User-Agent', value: 'bot' }] }],
          },
        ],
      },
    ],
  } as Pick<EmulatorFixtures, 'load_balancers' | 'secrets'>;
  block('cert', { type: 'cloud_secret', secret_id: secretId, name: 'chaos-cert' });
  block('lb', { type: 'cloud_load_balancer', load_balancer_id: lbId, name: 'chaos-lb', tags: { env: 'staging' } });
  block('lb_http', { type: 'cloud_lb_listener', load_balancer_id: '${cloud_load_balancer.lb.id}', name: 'chaos-http', protocol: 'HTTP', protocol_port: 80 });
  block('lb_https', {
    type: 'cloud_lb_listener',
    load_balancer_id: '${cloud_load_balancer.lb.id}',
    name: 'chaos-https',
    protocol: 'TERMINATED_HTTPS',
    protocol_port: 443,
    secret_id: '${cloud_secret.cert.id}',
    connection_limit: 5000,
  });
  // An L7 policy whose redirect code changes (one PATCH on the balancer, its rule kept).
  block('lb_redirect', {
    type: 'cloud_lb_l7policy',
    listener_id: '${cloud_lb_listener.lb_http.id}',
    name: 'chaos-to-https',
    action: 'REDIRECT_PREFIX',
    redirect_prefix: 'https://chaos.example',
    redirect_http_code: 301,
    rules: [{ type: 'PATH', compare_type: 'STARTS_WITH', value: '/' }],
  });
  // One that stays as it is (a no-op read with its rules).
  block('lb_reject', {
    type: 'cloud_lb_l7policy',
    listener_id: '${cloud_lb_listener.lb_https.id}',
    name: 'chaos-reject-bots',
    action: 'REJECT',
    rules: [{ type: 'HEADER', compare_type: 'CONTAINS', key: 'User-Agent', value: 'bot' }],
  });
  block('lb_pool', {
    type: 'cloud_lb_pool',
    load_balancer_id: '${cloud_load_balancer.lb.id}',
    name: 'chaos-pool',
    lb_algorithm: 'ROUND_ROBIN',
    protocol: 'HTTP',
    members: [...members, { address: '10.0.0.11', protocol_port: 8080 }],
  });
  block('lb_http_pool', {
    type: 'cloud_lb_pool',
    load_balancer_id: '${cloud_load_balancer.lb.id}',
    name: 'chaos-http-pool',
    lb_algorithm: 'ROUND_ROBIN',
    protocol: 'HTTP',
    members: [{ address: '10.0.0.12', protocol_port: 80 }],
  });
  return { fixtures, blocks };
}
// ---- end of load balancers

/** Which emulator resource a planned change acts on, as the mutation log names it; one it creates by its ownership address (`kind @address`, see mutationsByResource). */
export function emulatorResource(change: ResourceChange): string {
  const d = change.desired as Record<string, unknown>;
  const place = (kind: MutationKind, id: unknown) => `${kind} ${String(id)}`;
  if (change.action === 'create') return `${CREATED_KIND[change.type] ?? change.type} @${change.address}`;
  switch (change.type) {
    case 'cloud_floating_ip':
      return place('floating_ip', d.floating_ip_id);
    case 'cloud_instance':
      return place('instance', d.instance_id);
    case 'cloud_k8s_cluster':
      return place('k8s_cluster', `${String(d.project_id)}/${String(d.region_id)}/${String(d.cluster_name)}`);
    case 'iam_reseller_notification_setting':
      return place('notification_setting', d.notification_settings_id);
    case 'fastedge_app':
      return place('fastedge_app', d.app_id);
    case 'streaming_player':
      return place('streaming_player', d.player_id);
    case 'streaming_video_subtitle':
      return place('subtitle', d.subtitle_id);
    case 'cloud_quota_limit_request':
      return place('quota_request', d.request_id);
    // DNS (issue 21): a zone by its name, a record set by its owner name and type, as the emulator keys them.
    case 'dns_zone':
      return place('dns_zone', canonicalName(String(d.name)));
    case 'dns_rrset':
      return place('dns_rrset', `${ownerName(String(d.name), String(d.zone))}/${String(d.record_type)}`);
    // --- CDN kinds (cdn-kinds) ---
    case 'cdn_origin_group':
      return place('cdn_origin_group', d.origin_group_id);
    case 'cdn_resource':
      return place('cdn_resource', d.resource_id);
    case 'cdn_rule':
      return place('cdn_rule', d.rule_id);
    // --- end of CDN kinds ---
    // --- net (issue 22): networks, subnets, SSH keys ---
    case 'cloud_network':
      return place('network', d.network_id);
    case 'cloud_subnet':
      return place('subnet', d.subnet_id);
    case 'cloud_ssh_key':
      return place('ssh_key', d.ssh_key_id);
    // --- end net ---
    // --- security groups and volumes (issue 22, branch sg) ---
    case 'cloud_security_group':
      return place('security_group', d.security_group_id);
    case 'cloud_volume':
      return place('volume', d.volume_id);
    // --- end security groups and volumes ---
    // --- load balancers (issue 34) ---
    case 'cloud_load_balancer':
      return place('load_balancer', d.load_balancer_id);
    case 'cloud_lb_listener':
      return place('lb_listener', d.listener_id ?? change.before?.listener_id);
    case 'cloud_lb_pool':
      return place('lb_pool', d.pool_id ?? change.before?.pool_id);
    case 'cloud_lb_l7policy':
      return place('lb_l7policy', d.l7policy_id ?? change.before?.l7policy_id);
    case 'cloud_secret':
      return place('secret', d.secret_id);
    // --- end load balancers ---
  }
}

/** One mutation as `change {after}`, for comparing with what a plan expects. */
export function describeMutation(m: Pick<MutationLogEntry, 'change' | 'after'>): string {
  return `${m.change} ${canonicalJson(m.after)}`;
}

/**
 * The mutations a planned change should cause, in order, each exactly once: a resize, a tags
 * update, one upgrade per step of the planned path, a settings update, a delete; none for a no-op.
 */
export function expectedMutations(change: ResourceChange): string[] {
  if (change.action === 'no-op') return [];
  if (change.action === 'delete') {
    // An active CDN resource or rule is deactivated first (the platform refuses to delete it).
    const deactivates = (change.type === 'cdn_resource' || change.type === 'cdn_rule') && change.before?.active !== false;
    return [
      ...(deactivates ? [describeMutation({ change: 'update', after: { active: false } })] : []),
      describeMutation({ change: DELETE_CHANGE[change.type] ?? 'delete', after: {} }),
    ];
  }
  if (change.action === 'create') return [createdMutation(change)];
  const after = change.after as Record<string, unknown>;
  switch (change.type) {
    case 'cloud_floating_ip':
      return [describeMutation({ change: 'update_floating_ip', after: { tags: after.tags } })];
    case 'cloud_instance':
      return [describeMutation({ change: 'resize_vm', after: { flavor_id: after.flavor_id } })];
    case 'cloud_volume':
      return [describeMutation({ change: 'extend_volume', after: { size: after.size } })];
    case 'cloud_k8s_cluster':
      return ((change.payload?.upgrade_path as string[] | undefined) ?? []).map((version) => describeMutation({ change: 'upgrade_k8s_cluster_v2', after: { version } }));
    case 'iam_reseller_notification_setting':
    case 'streaming_video_subtitle':
      return [describeMutation({ change: 'update', after: Object.fromEntries(change.changes.map((c) => [c.path[0], c.after])) })];
    case 'dns_rrset': {
      // A PUT replaces the record set: the emulator logs its TTL and the records' contents as sent.
      const body = (change.payload as { body: { ttl?: number; resource_records: Array<{ content: unknown[] }> } }).body;
      return [describeMutation({ change: 'update', after: { ttl: body.ttl, contents: body.resource_records.map((r) => r.content) } })];
    }
    case 'cdn_resource':
    case 'cdn_rule':
      // A PATCH of the fields that differ: the emulator logs each changed field as sent.
      return [describeMutation({ change: 'update', after: (change.payload as { body: Record<string, unknown> }).body })];
    case 'cloud_lb_listener':
      return [describeMutation({ change: 'update_lblistener', after: (change.payload as { body: Record<string, unknown> }).body })];
    case 'cloud_lb_pool': {
      // The members as the pool keeps them: address:port, in the order sent.
      const body = (change.payload as { body: { members?: Array<{ address: string; protocol_port: number }> } }).body;
      return [describeMutation({ change: 'update_lbpool', after: { members: (body.members ?? []).map((m) => `${m.address}:${m.protocol_port}`) } })];
    }
    case 'cloud_lb_l7policy':
      // The PATCH's fields that differ, as the emulator logs them (the rules are changes of their own).
      return [describeMutation({ change: 'update_l7policy', after: Object.fromEntries(change.changes.filter((c) => c.path[0] !== 'rules').map((c) => [c.path[0], c.after])) })];
    default:
      throw new Error(`no update is expected of ${change.type}`);
  }
}

/** The mutation-log kind of the resources a kind creates (the key of a created resource, see emulatorResource). */
const CREATED_KIND: Partial<Record<ResourceChange['type'], MutationKind>> = { cloud_instance: 'instance', cloud_floating_ip: 'floating_ip' };

/** What the emulator logs for a delete that is a platform task; a synchronous delete logs `delete`. */
const DELETE_CHANGE: Partial<Record<ResourceChange['type'], string>> = { cloud_instance: 'delete_vm', cloud_floating_ip: 'delete_fip', cloud_volume: 'delete_volume' };

/** The one mutation a create should cause: its task's change with what the create request asked for. */
function createdMutation(change: ResourceChange): string {
  const payload = (change.payload ?? {}) as Record<string, unknown>;
  switch (change.type) {
    case 'cloud_instance':
      return describeMutation({ change: 'create_vm', after: { name: payload.name, flavor_id: payload.flavor, tags: payload.tags } });
    case 'cloud_floating_ip':
      return describeMutation({ change: 'create_fip', after: { tags: payload.tags } });
    default:
      throw new Error(`no create is expected of ${change.type}`);
  }
}

/**
 * Mutations per emulator resource (`kind id`), described, in order. A resource a create made
 * (its create mutation's tags carry `edgeform-address`) is keyed by that address (`kind @address`),
 * from its create on, so it meets its planned create whatever id the platform gave it.
 */
export function mutationsByResource(mutations: readonly MutationLogEntry[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const created = new Map<string, string>();
  for (const m of mutations) {
    const address = (m.after.tags as Record<string, unknown> | undefined)?.['edgeform-address'];
    if (m.change.startsWith('create') && typeof address === 'string') created.set(`${m.kind} ${m.id}`, `${m.kind} @${address}`);
    const key = created.get(`${m.kind} ${m.id}`) ?? `${m.kind} ${m.id}`;
    out.set(key, [...(out.get(key) ?? []), describeMutation(m)]);
  }
  return out;
}

const isStrictPrefix = (part: readonly string[], whole: readonly string[]) => part.length < whole.length && part.every((m, i) => m === whole[i]);

/**
 * Compares what an apply reported with what the emulator did (its mutation log for that run),
 * and returns every disagreement as a line (none: the report is true):
 * - applied: the planned mutations happened, each exactly once (a two-step upgrade: both steps);
 * - unchanged: nothing happened;
 * - failed, skipped, not started: the change was not made; at most a strict prefix of it (a
 *   multi-step upgrade that failed part-way). A change made although the report says it was not
 *   (e.g. acknowledged, and its confirmation failed) is a disagreement;
 * - nothing outside the stack changed.
 */
export function compareWithMutations(plan: Plan, outcome: ApplyOutcome, mutations: readonly MutationLogEntry[]): string[] {
  const done = mutationsByResource(mutations);
  const problems: string[] = [];
  const statusOf = new Map(outcome.resources.map((r) => [r.address, r]));
  for (const change of plan.resource_changes) {
    const key = emulatorResource(change);
    const actual = done.get(key) ?? [];
    done.delete(key);
    const expected = expectedMutations(change);
    const result = statusOf.get(change.address);
    const said = result ? `${result.status}${result.error ? ` (${result.error.split('\n')[0]})` : ''}` : 'not reported';
    const show = (list: readonly string[]) => (list.length === 0 ? 'nothing' : list.join(' ; '));
    if (result?.status === 'applied') {
      if (canonicalJson(actual) !== canonicalJson(expected))
        problems.push(`${change.address}: reported applied, but the emulator did ${show(actual)}; the plan expects ${show(expected)}`);
    } else if (result?.status === 'unchanged') {
      if (actual.length > 0) problems.push(`${change.address}: reported unchanged, but the emulator did ${show(actual)}`);
    } else if (actual.length > 0 && !isStrictPrefix(actual, expected)) {
      problems.push(`${change.address}: reported ${said}, but the emulator did ${show(actual)}`);
    }
  }
  for (const [key, list] of done) problems.push(`${key}: not in the plan, but the emulator did ${list.join(' ; ')}`);
  return problems;
}

/** Statuses of an outcome counted, e.g. `{applied: 120, unchanged: 40, failed: 30, skipped: 10}`. */
export function countStatuses(outcome: ApplyOutcome): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of outcome.resources) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

/**
 * A provider context as `edgeform apply` builds it (one client, the run's retry budget, the
 * default task poll schedule, the CLI's confirmation policy), except that nothing waits on the
 * wall clock: every wait (retry backoff, Retry-After, task poll interval, confirmation re-read,
 * a provider's own pause) moves the emulator's manual clock forward instead, so platform time
 * passes as it would and the test takes no longer than its requests.
 */
export function createChaosContext(
  emu: Pick<Emulator, 'url' | 'apiKey' | 'clock'>,
  options: { retryQuota?: RetryQuota; retryPolicy?: Partial<RetryPolicy>; connections?: number } = {},
): {
  api: ApiClient;
  ctx: ProviderContext;
  confirm: ConfirmPolicy;
  /** Every retry wait the client asked for, in ms. */
  retryDelays: number[];
} {
  const retryDelays: number[] = [];
  const advance: Sleep = async (ms) => {
    emu.clock.advance(ms);
  };
  const api = createApiClient({
    baseUrl: emu.url,
    apiKey: emu.apiKey,
    connections: options.connections ?? 14,
    ...(options.retryQuota ? { retryQuota: options.retryQuota } : {}),
    ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
    sleep: async (ms) => {
      retryDelays.push(ms);
      emu.clock.advance(ms);
    },
    // Backoff jitter fixed at the middle: the same seed spends the same retry budget.
    random: () => 0.5,
    now: () => emu.clock.now(),
  });
  const ctx = createProviderContext({ api, sleep: advance, now: () => emu.clock.now() });
  const confirm: ConfirmPolicy = { ...CONFIRM_POLICY, sleep: advance };
  return { api, ctx, confirm, retryDelays };
}
