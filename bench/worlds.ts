/**
 * The worlds `npm run bench` measures: a stack and the emulator fixtures it is planned against,
 * generated, deterministic (ids derive from the index), and written as files for the processes.
 * Besides the stack, each world says how many list pages a grouped read of it needs: the ideal
 * number of requests of a plan.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_ZONE_FILE_BYTES } from '../src/kinds/dns-zone/schema.js';

/** A generated stack with its platform. */
export interface World {
  /** Path of the stack file. */
  stack: string;
  /** Path of the emulator fixtures (JSON, which the emulator reads as YAML). */
  fixtures: string;
  /** Resources in the stack. */
  resources: number;
  /**
   * The list pages that read every resource of the stack when reads are grouped by what the
   * platform lists together (one list per kind and project/region, pages as the list routes
   * cut them: see PAGE_SIZES).
   */
  listPages: number;
  /** A trivial request to time L with: the path of a GET of one resource of the world. */
  probe: string;
}

/** Items per page of each list route, as the platform (and the emulator) cut them. */
export const PAGE_SIZES = {
  /** GET /cloud/v1/floatingips|instances/{p}/{r}, /cloud/v2/limits_request: limit up to 1000. */
  cloud: 1000,
  /** GET /fastedge/v1/apps: limit up to 1000. */
  fastedge: 1000,
  /** GET /dns/v2/zones/{zone}/rrsets: limit up to 1000 as edgeform asks. */
  dns: 1000,
  /** GET /streaming/players: 25 per page, fixed. */
  streaming: 25,
  /** GET /cloud/v2/k8s/clusters/{p}/{r}, IAM notification settings: one answer holds them all. */
  unpaged: Number.POSITIVE_INFINITY,
} as const;

const uuid = (prefix: string, i: number) => `${prefix}-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** The ten project/region pairs the mixed world spreads over. */
const PLACEMENTS = Array.from({ length: 10 }, (_, i) => ({ project_id: 1 + i, region_id: 76 + i }));

function write(dir: string, name: string, stackLines: string[], fixtures: Record<string, unknown>, resources: number, listPages: number, probe: string): World {
  const stack = join(dir, `${name}.yaml`);
  const fixturesFile = join(dir, `${name}.fixtures.json`);
  writeFileSync(stack, `${['version: 1', ...stackLines].join('\n')}\n`);
  writeFileSync(fixturesFile, JSON.stringify(fixtures));
  return { stack, fixtures: fixturesFile, resources, listPages, probe };
}

/**
 * `n` floating IPs in one project/region whose tags all differ from the stack's: a plan with
 * `n` changes. The world of the read and compute figures.
 */
export function floatingIpWorld(dir: string, n: number): World {
  const lines = ['defaults: { project_id: 1, region_id: 76 }', 'resources:'];
  const ips = [];
  for (let i = 0; i < n; i++) {
    const id = uuid('1f000000', i);
    lines.push(`  ip_${i}:`, '    type: cloud_floating_ip', `    floating_ip_id: ${id}`, `    tags: { env: prod, idx: "${i}" }`);
    ips.push({ id, floating_ip_address: `198.51.${Math.floor(i / 250) % 256}.${i % 250}`, status: 'ACTIVE', tags: { env: 'staging', idx: String(i) } });
  }
  return write(
    dir,
    `floating-ips-${n}`,
    lines,
    { defaults: { project_id: 1, region_id: 76 }, floating_ips: ips },
    n,
    Math.ceil(n / PAGE_SIZES.cloud),
    `/cloud/v1/floatingips/1/76/${uuid('1f000000', 0)}`,
  );
}

/**
 * `n` load balancers of stack "lbs" in one project/region, each with an HTTP listener and its
 * pool (one member) and a TCP listener, declared as they are: a no-change plan (issue 34). Its
 * `listPages` are the balancers' list (filtered by the stack's ownership tag), the listeners' and
 * the pools', each cut in pages of 1,000: not one request per child.
 */
export function balancerWorld(dir: string, n: number): World {
  const lines = ['name: lbs', 'defaults: { project_id: 1, region_id: 76 }', 'resources:'];
  const load_balancers = [];
  for (let i = 0; i < n; i++) {
    const lb = `\${cloud_load_balancer.lb_${i}.id}`;
    load_balancers.push({
      id: uuid('7a000000', i),
      name: `lb-${i}`,
      tags: { 'edgeform-stack': 'lbs', 'edgeform-address': `cloud_load_balancer.lb_${i}` },
      listeners: [
        { name: 'http', protocol: 'HTTP', protocol_port: 80, pool: { name: 'web', protocol: 'HTTP', members: [{ address: '10.0.0.10', protocol_port: 8080 }] } },
        { name: 'tcp', protocol: 'TCP', protocol_port: 5432 },
      ],
    });
    lines.push(
      `  lb_${i}: { type: cloud_load_balancer, name: lb-${i} }`,
      `  http_${i}: { type: cloud_lb_listener, name: http, load_balancer_id: "${lb}", protocol: HTTP, protocol_port: 80 }`,
      `  tcp_${i}: { type: cloud_lb_listener, name: tcp, load_balancer_id: "${lb}", protocol: TCP, protocol_port: 5432 }`,
      `  pool_${i}: { type: cloud_lb_pool, name: web, load_balancer_id: "${lb}", listener_id: "\${cloud_lb_listener.http_${i}.id}", lb_algorithm: ROUND_ROBIN, protocol: HTTP, members: [{ address: 10.0.0.10, protocol_port: 8080 }] }`,
    );
  }
  const pages = (items: number) => Math.max(1, Math.ceil(items / PAGE_SIZES.cloud));
  return write(dir, `balancers-${n}`, lines, { load_balancers }, 4 * n, pages(n) + pages(2 * n) + pages(n), `/cloud/v1/loadbalancers/1/76/${uuid('7a000000', 0)}`);
}

/**
 * `n` instances in one project/region, each to be resized to a flavor it offers: the apply
 * world (every resize is one platform task).
 */
export function resizeWorld(dir: string, n: number): World {
  const lines = ['defaults: { project_id: 1, region_id: 76 }', 'resources:'];
  const instances = [];
  for (let i = 0; i < n; i++) {
    const id = uuid('2a000000', i);
    lines.push(`  vm_${i}: { type: cloud_instance, instance_id: ${id}, flavor_id: g2-standard-4-8 }`);
    instances.push({ id, name: `vm-${i}`, status: 'ACTIVE', flavor_id: 'g2-standard-2-4', available_flavors: ['g2-standard-2-4', 'g2-standard-4-8'] });
  }
  return write(
    dir,
    `resizes-${n}`,
    lines,
    { defaults: { project_id: 1, region_id: 76 }, instances },
    n,
    Math.ceil(n / PAGE_SIZES.cloud),
    `/cloud/v1/instances/1/76/${uuid('2a000000', 0)}`,
  );
}

/**
 * `n` resources of every kind, the cloud ones spread over ten project/regions: floating IPs to
 * retag, instances and clusters already as declared, FastEdge apps, players and quota requests to
 * delete, notification settings to change. Only reads decide this plan's time.
 */
export function mixedWorld(dir: string, n: number): World {
  const share = { fip: 0.3, vm: 0.15, k8s: 0.1, app: 0.15, player: 0.1, mail: 0.1, quota: 0.1 };
  const count = Object.fromEntries(Object.entries(share).map(([k, s]) => [k, Math.round(n * s)])) as Record<keyof typeof share, number>;
  count.fip += n - Object.values(count).reduce((a, b) => a + b, 0);
  const lines = ['resources:'];
  const fixtures = {
    defaults: { project_id: 1, region_id: 76 },
    k8s_versions: ['v1.30.6', 'v1.31.3'],
    floating_ips: [] as unknown[],
    instances: [] as unknown[],
    k8s_clusters: [] as unknown[],
    fastedge_apps: [] as unknown[],
    streaming_players: [] as unknown[],
    notification_settings: [] as unknown[],
    quota_requests: [] as unknown[],
  };
  const where = (i: number) => PLACEMENTS[i % PLACEMENTS.length]!;
  const groups = (k: number) => Math.min(k, PLACEMENTS.length);
  for (let i = 0; i < count.fip; i++) {
    const id = uuid('3b000000', i);
    const p = where(i);
    lines.push(`  ip_${i}: { type: cloud_floating_ip, project_id: ${p.project_id}, region_id: ${p.region_id}, floating_ip_id: ${id}, tags: { env: prod } }`);
    fixtures.floating_ips.push({ id, ...p, tags: { env: 'staging' } });
  }
  for (let i = 0; i < count.vm; i++) {
    const id = uuid('4c000000', i);
    const p = where(i);
    lines.push(`  vm_${i}: { type: cloud_instance, project_id: ${p.project_id}, region_id: ${p.region_id}, instance_id: ${id}, flavor_id: g2-standard-2-4 }`);
    fixtures.instances.push({ id, ...p, name: `vm-${i}`, status: 'ACTIVE', flavor_id: 'g2-standard-2-4' });
  }
  for (let i = 0; i < count.k8s; i++) {
    const p = where(i);
    lines.push(`  k8s_${i}: { type: cloud_k8s_cluster, project_id: ${p.project_id}, region_id: ${p.region_id}, cluster_name: cluster-${i}, version: v1.31.3 }`);
    fixtures.k8s_clusters.push({ name: `cluster-${i}`, ...p, version: 'v1.31.3', status: 'Provisioned' });
  }
  for (let i = 0; i < count.app; i++) {
    lines.push(`  app_${i}: { type: fastedge_app, app_id: ${1000 + i}, ensure: absent }`);
    fixtures.fastedge_apps.push({ id: 1000 + i, name: `app-${i}`, status: 1, binary: 1, plan_id: 1, plan: 'basic' });
  }
  for (let i = 0; i < count.player; i++) {
    lines.push(`  player_${i}: { type: streaming_player, player_id: ${5000 + i}, ensure: absent }`);
    fixtures.streaming_players.push({ id: 5000 + i, name: `player-${i}` });
  }
  for (let i = 0; i < count.mail; i++) {
    lines.push(
      `  mail_${i}: { type: iam_reseller_notification_setting, reseller_id: 7, notification_settings_id: ${100 + i}, notification_type: failed_login, email: ops${i}@example.com, enabled: true }`,
    );
    fixtures.notification_settings.push({ id: 100 + i, reseller: 7, notification_type: 'failed_login', email: `old${i}@example.com`, enabled: false });
  }
  for (let i = 0; i < count.quota; i++) {
    lines.push(`  quota_${i}: { type: cloud_quota_limit_request, request_id: ${700 + i}, ensure: absent }`);
    fixtures.quota_requests.push({
      id: 700 + i,
      status: 'in progress',
      description: `request ${i}`,
      requested_limits: { regional_limits: [{ region_id: 76, cpu_count_limit: 64 }] },
      created_at: '2025-12-10T08:00:00',
    });
  }
  const perGroup = (k: number) => Math.ceil(k / groups(k));
  const listPages =
    groups(count.fip) * Math.ceil(perGroup(count.fip) / PAGE_SIZES.cloud) +
    groups(count.vm) * Math.ceil(perGroup(count.vm) / PAGE_SIZES.cloud) +
    groups(count.k8s) +
    Math.ceil(count.app / PAGE_SIZES.fastedge) +
    Math.ceil(count.player / PAGE_SIZES.streaming) +
    1 +
    Math.ceil(count.quota / PAGE_SIZES.cloud);
  return write(dir, `mixed-${n}`, lines, fixtures, n, listPages, `/cloud/v1/floatingips/1/76/${uuid('3b000000', 0)}`);
}

/** The stack name of the identity world: its floating IPs carry it in their ownership tags. */
const IDENTITY_STACK = 'bench-identity';

/**
 * `fips` floating IPs found by their ownership tags (`edgeform-stack`, `edgeform-address`, no
 * `floating_ip_id`) in one project/region and `apps` FastEdge apps found by name (no `app_id`):
 * the blocks a stack creates. `converged`: the platform already holds every one as declared (a
 * re-plan: nothing to do); otherwise it holds none of them (an apply creates them all). Its
 * `listPages` are the lists that find them all: one tag-filtered list of the project/region and
 * the app list.
 */
export function identityWorld(dir: string, fips: number, apps: number, converged: boolean): World {
  const lines = [`name: ${IDENTITY_STACK}`, 'defaults: { project_id: 1, region_id: 76 }', 'resources:'];
  const ips = [];
  const made = [];
  for (let i = 0; i < fips; i++) {
    lines.push(`  ip_${i}: { type: cloud_floating_ip, tags: { env: prod } }`);
    const tags = { env: 'prod', 'edgeform-stack': IDENTITY_STACK, 'edgeform-address': `cloud_floating_ip.ip_${i}` };
    ips.push({ id: uuid('5d000000', i), floating_ip_address: `203.0.${Math.floor(i / 250) % 256}.${i % 250}`, status: 'ACTIVE', tags });
  }
  for (let i = 0; i < apps; i++) {
    lines.push(`  app_${i}: { type: fastedge_app, name: app-${i}, binary: 1, status: 1 }`);
    made.push({ id: 1000 + i, name: `app-${i}`, status: 1, binary: 1 });
  }
  // One untouched floating IP, so that the probe has something to GET either way.
  const probe = { id: uuid('5e000000', 0), status: 'ACTIVE', tags: {} };
  const fixtures = { defaults: { project_id: 1, region_id: 76 }, floating_ips: [probe, ...(converged ? ips : [])], fastedge_apps: converged ? made : [] };
  const listPages = (fips > 0 ? Math.max(1, Math.ceil(fips / PAGE_SIZES.cloud)) : 0) + (apps > 0 ? Math.max(1, Math.ceil(apps / PAGE_SIZES.fastedge)) : 0);
  return write(dir, `identity-${fips}-${apps}-${converged ? 'converged' : 'empty'}`, lines, fixtures, fips + apps, listPages, `/cloud/v1/floatingips/1/76/${probe.id}`);
}

/**
 * `n` FastEdge apps to delete, independent of each other: every change is one DELETE and no
 * platform task, so what is left of an apply's time besides the requests is edgeform's own
 * work, the scheduling of the executor among it. The world of the scheduling figure.
 */
export function deleteAppsWorld(dir: string, n: number): World {
  const lines = ['resources:'];
  const apps = [];
  for (let i = 0; i < n; i++) {
    lines.push(`  app_${i}: { type: fastedge_app, app_id: ${1000 + i}, ensure: absent }`);
    apps.push({ id: 1000 + i, name: `app-${i}`, status: 1, binary: 1, plan_id: 1, plan: 'basic' });
  }
  return write(dir, `delete-apps-${n}`, lines, { fastedge_apps: apps }, n, Math.ceil(n / PAGE_SIZES.fastedge), '/fastedge/v1/apps/1000');
}

/**
 * The largest zone file a `dns_zone` may name (`records_file:`, MAX_ZONE_FILE_BYTES): as many
 * one-record A sets as fit, each a line like `hos123456 A 10.1.226.64` (174,145: the size of the 175,070), in a zone the
 * platform has, empty: a plan of that many creates. `resources` counts the record sets and the
 * zone; `inputBytes` is the stack and the zone file together.
 */
export function zoneFileWorld(dir: string): World & { inputBytes: number } {
  const lines = ['$ORIGIN example.com.', '$TTL 300'];
  let bytes = lines.join('\n').length + 1;
  for (let i = 0; ; i++) {
    const line = `hos${String(i).padStart(6, '0')} A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    if (bytes + line.length + 1 > MAX_ZONE_FILE_BYTES) break;
    lines.push(line);
    bytes += line.length + 1;
  }
  const zoneFile = join(dir, 'largest.zone');
  writeFileSync(zoneFile, `${lines.join('\n')}\n`);
  const world = write(
    dir,
    'zone-file',
    ['resources:', '  main:', '    type: dns_zone', '    name: example.com', '    records_file: largest.zone'],
    { dns_zones: [{ name: 'example.com' }] },
    lines.length - 2 + 1,
    1,
    '/dns/v2/zones/example.com',
  );
  return { ...world, inputBytes: bytes + Buffer.byteLength('version: 1\nresources:\n  main:\n    type: dns_zone\n    name: example.com\n    records_file: largest.zone\n') };
}

/**
 * A one-block stack (a floating IP adopted by id) and no platform: what `validate` of the
 * smallest stack costs beyond node's own start-up. It declares no SSH key, so nothing of the
 * key parser is needed.
 */
export function tinyWorld(dir: string): World {
  const id = uuid('6f000000', 0);
  const lines = ['resources:', '  ip:', '    type: cloud_floating_ip', '    project_id: 1', '    region_id: 76', `    floating_ip_id: ${id}`, '    tags: { env: prod }'];
  return write(dir, 'tiny', lines, { floating_ips: [] }, 1, 0, `/cloud/v1/floatingips/1/76/${id}`);
}

/** The zone of the DNS worlds' record set `i` when they spread over `zones` zones. */
const dnsZone = (i: number, zones: number) => `z${i % zones}.bench.example`;

/**
 * `n` DNS record sets (an A record set each, its own name) spread over `zones` zones that the
 * platform holds (literal `zone:` names, no `dns_zone` block, so nothing is pruned and no zone
 * is read). `differs`: the platform holds every set with another TTL (a plan of `n` updates);
 * otherwise it holds none of them (an apply creates them all). Its `listPages` are the zones'
 * record set lists (1,000 sets a page, the apex SOA and NS counted).
 */
export function dnsWorld(dir: string, n: number, zones: number, differs: boolean): World {
  const lines = ['resources:'];
  const byZone = new Map<string, Array<{ name: string; type: string; ttl: number; resource_records: Array<{ content: string[] }> }>>();
  for (let z = 0; z < zones; z++) byZone.set(dnsZone(z, zones), []);
  for (let i = 0; i < n; i++) {
    const zone = dnsZone(i, zones);
    const address = `198.51.${Math.floor(i / 250) % 256}.${i % 250}`;
    lines.push(`  rr_${i}: { type: dns_rrset, zone: ${zone}, name: r${i}, record_type: A, ttl: 300, resource_records: [{ content: [${address}] }] }`);
    if (differs) byZone.get(zone)!.push({ name: `r${i}`, type: 'A', ttl: 600, resource_records: [{ content: [address] }] });
  }
  const fixtures = { dns_zones: [...byZone].map(([name, rrsets]) => ({ name, rrsets })) };
  // Each zone's list holds its apex SOA and NS besides the world's sets (differs) or only them.
  const listPages = zones * (differs ? Math.ceil((Math.ceil(n / zones) + 2) / PAGE_SIZES.dns) : 1);
  return write(dir, `dns-${n}-${zones}-${differs ? 'differs' : 'empty'}`, lines, fixtures, n, listPages, `/dns/v2/zones/${dnsZone(0, zones)}`);
}

/** The five project/region pairs of the fleet worlds. */
const FLEET_PLACES = Array.from({ length: 5 }, (_, i) => ({ project_id: 1 + i, region_id: 76 + i }));

/**
 * A fleet of `stacks` stacks of `perStack` floating IPs each, found by ownership tags and all
 * created (a drift finds everything in sync), stack `i` in place `i mod 5`; as one stack of
 * `stacks × perStack` blocks over the same places when `single`. `stack` is the fleet's root
 * directory (or the one stack's file); `listPages` the list pages of the five places.
 */
export function fleetWorld(dir: string, stacks: number, perStack: number, single: boolean): World {
  const name = `fleet-${stacks}x${perStack}${single ? '-single' : ''}`;
  const root = join(dir, name);
  mkdirSync(root, { recursive: true });
  const fips: unknown[] = [];
  const singleLines = ['name: one', 'resources:'];
  for (let s = 0; s < stacks; s++) {
    const place = FLEET_PLACES[s % FLEET_PLACES.length]!;
    const stackName = single ? 'one' : `svc-${s}`;
    const lines = [`name: ${stackName}`, `defaults: { project_id: ${place.project_id}, region_id: ${place.region_id} }`, 'resources:'];
    for (let i = 0; i < perStack; i++) {
      const block = single ? `ip_${s}_${i}` : `ip_${i}`;
      const where = single ? `project_id: ${place.project_id}, region_id: ${place.region_id}, ` : '';
      (single ? singleLines : lines).push(`  ${block}: { type: cloud_floating_ip, ${where}tags: { env: prod } }`);
      const n = s * perStack + i;
      const tags = { env: 'prod', 'edgeform-stack': stackName, 'edgeform-address': `cloud_floating_ip.${block}` };
      fips.push({ id: uuid('6f000000', n), ...place, floating_ip_address: `198.51.${Math.floor(n / 250) % 256}.${n % 250}`, status: 'ACTIVE', tags });
    }
    if (!single) writeFileSync(join(root, `svc-${s}.yaml`), `${['version: 1', ...lines].join('\n')}\n`);
  }
  const fixtures = join(dir, `${name}.fixtures.json`);
  writeFileSync(fixtures, JSON.stringify({ defaults: FLEET_PLACES[0], floating_ips: fips }));
  const perPlace = Math.ceil((stacks * perStack) / FLEET_PLACES.length);
  const listPages = FLEET_PLACES.length * Math.max(1, Math.ceil(perPlace / PAGE_SIZES.cloud));
  const stack = single ? join(root, 'one.yaml') : root;
  if (single) writeFileSync(stack, `${['version: 1', ...singleLines].join('\n')}\n`);
  return { stack, fixtures, resources: stacks * perStack, listPages, probe: `/cloud/v1/floatingips/1/76/${uuid('6f000000', 0)}` };
}
