import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../../src/plan/planner.js';
import { providers } from '../../../src/kinds/providers.js';
import type { Observation, ReadResult } from '../../../src/kinds/provider.js';
import { checkBlock, resource, stackOf } from '../../helpers/stack.js';

const FIP = '726ecfcc-7fd0-4e30-a86e-7892524aa483';
const VM = 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11';

const fip = resource('cloud_floating_ip', 'web_ip', {
  project_id: 1,
  region_id: 76,
  floating_ip_id: FIP,
  tags: { env: 'prod', team: 'edge' },
  tags_policy: 'authoritative',
  ensure: 'present',
});
const vm = resource('cloud_instance', 'web_vm', { project_id: 1, region_id: 76, instance_id: VM, flavor_id: 'g2-standard-4-8', ensure: 'present' });
const cluster = resource('cloud_k8s_cluster', 'prod', { project_id: 1, region_id: 76, cluster_name: 'prod-eu', version: 'v1.31.3', ensure: 'present' }, ['cloud_instance.web_vm']);
const app = resource('fastedge_app', 'legacy', { app_id: 1234, ensure: 'absent' });

const observed = (state: Record<string, unknown>, lockTaskId: string | null = null): ReadResult => ({ ok: true, observation: { exists: true, state, lockTaskId } });
const gone: ReadResult = { ok: true, observation: { exists: false } as Observation };

function plan(reads: Record<string, ReadResult>, blocks = [cluster, fip, vm, app], checks: Parameters<typeof stackOf>[1] = [], checkOutcomes = new Map()) {
  return buildPlan({
    stack: stackOf(blocks, checks),
    reads: new Map(Object.entries(reads)),
    checks: checkOutcomes,
    planners: providers.resources,
    baseUrl: 'http://127.0.0.1:1',
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0',
  });
}

const demoReads = {
  'cloud_floating_ip.web_ip': observed({
    floating_ip_id: FIP,
    floating_ip_address: '203.0.113.10',
    status: 'ACTIVE',
    tags: [
      { key: 'env', value: 'staging', read_only: false },
      { key: 'team', value: 'edge', read_only: false },
      { key: 'owner', value: 'alice', read_only: false },
      { key: 'managed-by', value: 'platform', read_only: true },
    ],
  }),
  'cloud_instance.web_vm': observed({ instance_id: VM, name: 'web-1', status: 'ACTIVE', flavor_id: 'g2-standard-2-4', available_flavors: ['g2-standard-2-4', 'g2-standard-4-8'] }),
  'cloud_k8s_cluster.prod': observed({ cluster_name: 'prod-eu', version: 'v1.29.8', status: 'Provisioned', upgrade_versions: ['v1.30.6'] }),
  'fastedge_app.legacy': observed({ app_id: 1234, name: 'legacy-app', status: 1 }),
};

describe('buildPlan', () => {
  it('plans every kind in dependency order with counts and flags', () => {
    const p = plan(demoReads);
    expect(p.resource_changes.map((c) => [c.address, c.action])).toEqual([
      ['cloud_floating_ip.web_ip', 'update'],
      ['cloud_instance.web_vm', 'update'],
      ['cloud_k8s_cluster.prod', 'update'],
      ['fastedge_app.legacy', 'delete'],
    ]);
    expect(p.summary).toEqual({ add: 0, change: 3, destroy: 1, read: 0 });
    expect(p.applyable).toBe(true);
    expect(p.errored).toBe(false);
  });

  it('carries the smallest tags patch and the k8s upgrade path for apply', () => {
    const p = plan(demoReads);
    const byAddress = Object.fromEntries(p.resource_changes.map((c) => [c.address, c]));
    expect(byAddress['cloud_floating_ip.web_ip']!.payload).toEqual({ tags_patch: { env: 'prod', owner: null } });
    expect(byAddress['cloud_k8s_cluster.prod']!.payload).toEqual({ upgrade_path: ['v1.30.6', 'v1.31.3'] });
    expect(byAddress['cloud_k8s_cluster.prod']!.notes[0]).toContain('v1.29.8 -> v1.30.6 -> v1.31.3');
  });

  it('fingerprints the observed fields so a changed platform makes a saved plan stale', () => {
    const a = plan(demoReads).resource_changes[1]!;
    const b = plan({
      ...demoReads,
      'cloud_instance.web_vm': observed({ instance_id: VM, name: 'web-1', status: 'ACTIVE', flavor_id: 'g2-standard-8-16', available_flavors: ['g2-standard-4-8'] }),
    }).resource_changes[1]!;
    const c = plan({
      ...demoReads,
      'cloud_instance.web_vm': observed({ instance_id: VM, name: 'web-1', status: 'RESIZE', flavor_id: 'g2-standard-2-4', available_flavors: ['g2-standard-4-8'] }),
    }).resource_changes[1]!;
    expect(a.fingerprint).not.toBe(b.fingerprint);
    expect(a.fingerprint).toBe(c.fingerprint);
  });

  it('says no changes when the platform matches', () => {
    const p = plan(
      {
        'cloud_instance.web_vm': observed({ instance_id: VM, name: 'web-1', status: 'ACTIVE', flavor_id: 'g2-standard-4-8' }),
        'fastedge_app.legacy': gone,
      },
      [vm, app],
    );
    expect(p.resource_changes.map((c) => c.action)).toEqual(['no-op', 'no-op']);
    expect(p.applyable).toBe(false);
    expect(p.errored).toBe(false);
  });

  it('makes a missing resource that should exist a located error, and still plans the rest', () => {
    const p = plan({ ...demoReads, 'cloud_instance.web_vm': gone });
    expect(p.errored).toBe(true);
    expect(p.applyable).toBe(false);
    expect(p.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        address: 'cloud_instance.web_vm',
        summary: `cloud_instance.web_vm: cloud_instance "${VM}" does not exist; edgeform adopts existing resources by id`,
      }),
    ]);
    expect(p.resource_changes.map((c) => c.address)).toEqual(['cloud_floating_ip.web_ip', 'cloud_k8s_cluster.prod', 'fastedge_app.legacy']);
  });

  it('reports a failed read with the platform message and plans the rest', () => {
    const p = plan({ ...demoReads, 'fastedge_app.legacy': { ok: false, error: { summary: 'GET /fastedge/v1/apps/1234: 503 Service Unavailable' } } });
    expect(p.diagnostics[0]!.summary).toBe('reading fastedge_app.legacy failed: GET /fastedge/v1/apps/1234: 503 Service Unavailable');
    expect(p.resource_changes).toHaveLength(3);
  });

  it('refuses an unavailable flavor, listing the allowed ones', () => {
    const p = plan({
      ...demoReads,
      'cloud_instance.web_vm': observed({
        instance_id: VM,
        name: 'web-1',
        status: 'ACTIVE',
        flavor_id: 'g2-standard-2-4',
        available_flavors: ['g2-standard-2-4', 'g2-standard-8-16'],
      }),
    });
    expect(p.diagnostics[0]).toMatchObject({
      summary: 'cloud_instance.web_vm: flavor "g2-standard-4-8" is not available for instance web-1',
      detail: 'Flavors this instance can be resized to: g2-standard-2-4, g2-standard-8-16.',
    });
  });

  it('refuses a k8s downgrade', () => {
    const p = plan({ ...demoReads, 'cloud_k8s_cluster.prod': observed({ cluster_name: 'prod-eu', version: 'v1.32.1', status: 'Provisioned', upgrade_versions: [] }) });
    expect(p.diagnostics[0]!.summary).toContain('downgrading from v1.32.1 to v1.31.3 is not supported');
  });

  it('refuses a read-only tag key, naming it', () => {
    const ro = resource('cloud_floating_ip', 'web_ip', {
      project_id: 1,
      region_id: 76,
      floating_ip_id: FIP,
      tags: { 'managed-by': 'me' },
      tags_policy: 'merge',
      ensure: 'present',
    });
    const p = plan(demoReads, [ro]);
    expect(p.diagnostics[0]!.summary).toBe('cloud_floating_ip.web_ip: tag "managed-by" is read-only on the platform and cannot be set or removed');
  });

  it('shows a lock held by a running task as a warning and keeps it for apply', () => {
    const p = plan({ 'cloud_instance.web_vm': observed({ instance_id: VM, name: 'web-1', status: 'RESIZE', flavor_id: 'g2-standard-4-8' }, 'task-1') }, [vm]);
    expect(p.resource_changes[0]!.lock_task_id).toBe('task-1');
    expect(p.resource_changes[0]!.warnings[0]).toContain('locked by running platform task task-1');
  });

  it('treats an absent resource that is already gone as no change', () => {
    const p = plan({ 'fastedge_app.legacy': gone }, [app]);
    expect(p.resource_changes[0]).toMatchObject({ action: 'no-op', before: null, after: null, notes: ['already absent'] });
  });

  it('includes check outcomes, and an unevaluable check errors the plan', () => {
    const subs = checkBlock('streaming_video_subtitles', 'subs', { video_id: 1, languages: ['eng'] });
    const tasks = checkBlock('streaming_ai_tasks', 'fails', { where: { status: 'FAILURE' }, max_count: 0 });
    const p = plan(
      {},
      [],
      [subs, tasks],
      new Map([
        ['streaming_video_subtitles.subs', { status: 'fail', message: 'missing ger' }],
        ['streaming_ai_tasks.fails', { status: 'error', message: 'GET /streaming/ai/tasks: 503' }],
      ]),
    );
    expect(p.checks.map((c) => [c.address, c.status])).toEqual([
      ['streaming_video_subtitles.subs', 'fail'],
      ['streaming_ai_tasks.fails', 'error'],
    ]);
    expect(p.summary.read).toBe(2);
    expect(p.errored).toBe(true);
  });

  it('plans only the selected addresses', () => {
    const p = buildPlan({
      stack: stackOf([fip, vm]),
      selected: new Set(['cloud_instance.web_vm']),
      reads: new Map(Object.entries(demoReads)),
      checks: new Map(),
      planners: providers.resources,
      baseUrl: 'x',
      createdAt: 'x',
      edgeformVersion: 'x',
    });
    expect(p.resource_changes.map((c) => c.address)).toEqual(['cloud_instance.web_vm']);
  });
});

describe('buildPlan: the stack digest', () => {
  it('is read from the stack only when the plan is asked for it (a plan shown and not saved never hashes the stack)', () => {
    let reads = 0;
    const stack = stackOf([fip]);
    Object.defineProperty(stack, 'digest', {
      get: () => {
        reads += 1;
        return 'a'.repeat(64);
      },
    });
    const p = buildPlan({
      stack,
      reads: new Map(Object.entries({ 'cloud_floating_ip.web_ip': gone })),
      checks: new Map(),
      planners: providers.resources,
      baseUrl: 'http://127.0.0.1:1',
      createdAt: '2026-01-01T00:00:00.000Z',
      edgeformVersion: '0.0.0',
    });
    expect(reads).toBe(0);
    expect(p.stack.digest).toBe('a'.repeat(64));
    expect(JSON.parse(JSON.stringify(p.stack))).toEqual({ sources: ['stack.yaml'], digest: 'a'.repeat(64) });
    expect(reads).toBe(2);
  });
});
