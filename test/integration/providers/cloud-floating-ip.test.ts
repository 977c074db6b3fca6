import { describe, expect, it } from 'vitest';
import { ConflictError, InternalServerError } from '../../../src/api/errors.js';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { StillLockedError } from '../../../src/errors.js';
import { cloudFloatingIp } from '../../../src/kinds/cloud-floating-ip/provider.js';
import { DEMO, type TestEmulator } from '../../helpers/emulator.js';
import { planChange, routesSeen, type ProviderHarness, useProviderHarness, desiredOf } from '../../helpers/providers.js';
import { resource } from '../../helpers/stack.js';
import { REF } from '../../helpers/ref.js';

const V1_ONE = '/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}';
const V2_ONE = '/cloud/v2/floatingips/{project_id}/{region_id}/{floating_ip_id}';
const MISSING = '00000000-0000-4000-8000-000000000000';

const desired = desiredOf<ResourceAttributes['cloud_floating_ip']>({
  project_id: 1,
  region_id: 76,
  floating_ip_id: DEMO.fip,
  tags: { env: 'prod', team: 'edge' },
  tags_policy: 'authoritative',
  ensure: 'present',
});

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

/** The live tags of a floating IP in the emulator, user and read-only, as key=value strings. */
function liveTags(id: string): string[] {
  return emu.state.floatingIps
    .get(id)!
    .tags.map((t) => `${t.key}=${t.value}${t.read_only ? ' (read-only)' : ''}`)
    .sort();
}

describe('cloud_floating_ip read', () => {
  it('observes the address, status, every tag with its read-only flag, and no lock', async () => {
    const observed = await cloudFloatingIp.read(h.ctx, desired(), REF);
    expect(observed).toEqual({
      exists: true,
      state: {
        floating_ip_id: DEMO.fip,
        floating_ip_address: '203.0.113.10',
        status: 'ACTIVE',
        tags: expect.arrayContaining([
          { key: 'env', value: 'staging', read_only: false },
          { key: 'team', value: 'edge', read_only: false },
          { key: 'owner', value: 'alice', read_only: false },
          { key: 'managed-by', value: 'platform', read_only: true },
        ]),
      },
      lockTaskId: null,
    });
    expect(observed.exists && observed.state.tags).toHaveLength(4);
  });

  it('answers a floating IP the platform does not know (404) as not existing', async () => {
    expect(await cloudFloatingIp.read(h.ctx, desired({ floating_ip_id: MISSING }), REF)).toEqual({ exists: false });
  });

  it('retries a 503 once with one recorded backoff and then reads the floating IP', async () => {
    emu.faults.failNext({ method: 'GET', path: V1_ONE, status: 503, count: 1 });
    const observed = await cloudFloatingIp.read(h.ctx, desired(), REF);
    expect(observed.exists).toBe(true);
    expect(h.retryDelays).toEqual([250]);
    expect(routesSeen(emu)).toEqual([`GET ${V1_ONE}`, `GET ${V1_ONE}`]);
  });

  it('waits exactly as long as a 429 Retry-After asks before reading again', async () => {
    emu.faults.failNext({ method: 'GET', path: V1_ONE, status: 429, retryAfter: 7 });
    expect((await cloudFloatingIp.read(h.ctx, desired(), REF)).exists).toBe(true);
    expect(h.retryDelays).toEqual([7000]);
  });

  it('reports the lock of a running task as lockTaskId', async () => {
    const started = await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { tags: { tier: 'gold' } } });
    const [taskId] = started.body.tasks as string[];
    const observed = await cloudFloatingIp.read(h.ctx, desired(), REF);
    expect(observed).toMatchObject({ exists: true, lockTaskId: taskId });
  });
});

describe('cloud_floating_ip apply', () => {
  it('sends the computed merge patch with the v2 PATCH (never v1) and ends with the desired tags', async () => {
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    expect(change.action).toBe('update');
    await cloudFloatingIp.apply(h.ctx, change);

    const patches = h.sent.filter((r) => r.method === 'PATCH');
    expect(patches).toEqual([{ method: 'PATCH', path: `/cloud/v2/floatingips/1/76/${DEMO.fip}`, body: { tags: { env: 'prod', owner: null } } }]);
    expect(routesSeen(emu, (r) => r.startsWith('/cloud/v1/floatingips') || r.startsWith('/cloud/v2/floatingips')).filter((r) => r.startsWith('PATCH'))).toEqual([
      `PATCH ${V2_ONE}`,
    ]);
    // The emulator's task recorded the body it received.
    const task = [...emu.state.tasks.values()].find((t) => t.task_type === 'update_floating_ip');
    expect(task?.data).toEqual({ tags: { env: 'prod', owner: null } });
    expect(h.pollDelays.length).toBeGreaterThan(0);
    expect(liveTags(DEMO.fip)).toEqual(['env=prod', 'managed-by=platform (read-only)', 'team=edge']);
  });

  it('sends tags: null when every user tag goes, and the read-only tag stays', async () => {
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired({ tags: {} })));
    await cloudFloatingIp.apply(h.ctx, change);
    expect(h.sent.filter((r) => r.method === 'PATCH').map((r) => r.body)).toEqual([{ tags: null }]);
    expect(liveTags(DEMO.fip)).toEqual(['managed-by=platform (read-only)']);
  });

  it('patches only the listed keys under tags_policy merge and leaves unlisted tags alone', async () => {
    const change = await planChange(
      h.ctx,
      resource('cloud_floating_ip', 'media_ip', desired({ floating_ip_id: DEMO.fipDown, tags_policy: 'merge', tags: { team: 'media', 'cost-center': null } })),
    );
    await cloudFloatingIp.apply(h.ctx, change);
    expect(h.sent.filter((r) => r.method === 'PATCH').map((r) => r.body)).toEqual([{ tags: { 'cost-center': null, team: 'media' } }]);
    expect(liveTags(DEMO.fipDown)).toEqual(['env=prod', 'team=media']);
  });

  it('plans a no-op after the apply: the platform is in the desired state', async () => {
    await cloudFloatingIp.apply(h.ctx, await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired())));
    const again = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    expect(again.action).toBe('no-op');
  });
});

describe('cloud_floating_ip apply after an ambiguous failure', () => {
  it('finishes a PATCH whose answer was lost without a second task: it waits on the task found in task_id', async () => {
    emu.faults.dropNext({ method: 'PATCH', path: V2_ONE, when: 'after' });
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    await cloudFloatingIp.apply(h.ctx, change);
    expect(routesSeen(emu, (r) => r === V2_ONE)).toEqual([`PATCH ${V2_ONE}`]);
    expect([...emu.state.tasks.values()].filter((t) => t.task_type === 'update_floating_ip')).toHaveLength(1);
    expect(liveTags(DEMO.fip)).toEqual(['env=prod', 'managed-by=platform (read-only)', 'team=edge']);
  });

  it('retries a PATCH the platform refused with 503 and applies the patch once', async () => {
    emu.faults.failNext({ method: 'PATCH', path: V2_ONE, status: 503 });
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    await cloudFloatingIp.apply(h.ctx, change);
    expect(h.retryDelays).toEqual([250]);
    expect(liveTags(DEMO.fip)).toEqual(['env=prod', 'managed-by=platform (read-only)', 'team=edge']);
  });
});

describe('cloud_floating_ip apply after a PATCH lost before it was acted on', () => {
  it('re-reads, finds no lock and the old tags, and sends the idempotent patch once more', async () => {
    emu.faults.dropNext({ method: 'PATCH', path: V2_ONE, when: 'before' });
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    await cloudFloatingIp.apply(h.ctx, change);
    expect(routesSeen(emu, (r) => r === V2_ONE)).toEqual([`PATCH ${V2_ONE}`, `PATCH ${V2_ONE}`]);
    expect([...emu.state.tasks.values()].filter((t) => t.task_type === 'update_floating_ip')).toHaveLength(1);
    expect(liveTags(DEMO.fip)).toEqual(['env=prod', 'managed-by=platform (read-only)', 'team=edge']);
  });
});

describe('cloud_floating_ip apply after a 408/500/502/504 answer (outcome unknown)', () => {
  const patches = () => h.sent.filter((r) => r.method === 'PATCH');
  const readsBetween = () => routesSeen(emu, (r) => r === V1_ONE || r === V2_ONE);

  for (const status of [502, 500, 504, 408]) {
    it(`re-reads after a ${status} on the PATCH, finds it not started, and sends the patch once more`, async () => {
      const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
      emu.requests.length = 0;
      emu.faults.failNext({ method: 'PATCH', path: V2_ONE, status });
      await cloudFloatingIp.apply(h.ctx, change);
      expect(patches().map((r) => r.body)).toEqual([{ tags: { env: 'prod', owner: null } }, { tags: { env: 'prod', owner: null } }]);
      // The client did not retry on its own (the PATCH starts a task); the provider re-read first.
      expect(h.retryDelays).toEqual([]);
      expect(readsBetween()).toEqual([`PATCH ${V2_ONE}`, `GET ${V1_ONE}`, `PATCH ${V2_ONE}`]);
      expect(h.providerSleeps).toHaveLength(1);
      expect(h.providerSleeps[0]).toBeGreaterThanOrEqual(250);
      expect(h.providerSleeps[0]).toBeLessThanOrEqual(500);
      expect([...emu.state.tasks.values()].filter((t) => t.task_type === 'update_floating_ip')).toHaveLength(1);
      expect(liveTags(DEMO.fip)).toEqual(['env=prod', 'managed-by=platform (read-only)', 'team=edge']);
    });
  }

  it('gives up after 3 PATCHes when every one answers 502, with the platform message', async () => {
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    emu.faults.failNext({ method: 'PATCH', path: V2_ONE, status: 502, count: 10 });
    const error = await cloudFloatingIp.apply(h.ctx, change).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 502 });
    expect((error as Error).message).toContain('502 Bad Gateway: Bad Gateway (injected by the emulator)');
    expect(patches()).toHaveLength(3);
    expect(h.providerSleeps).toHaveLength(2);
    expect(liveTags(DEMO.fip)).toEqual(['env=staging', 'managed-by=platform (read-only)', 'owner=alice', 'team=edge']);
  });

  it('does not resend when the re-read after a 502 shows the tags already as desired', async () => {
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    // Someone else (or a lost earlier attempt) already made the change.
    await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { tags: { env: 'prod', owner: null } } });
    emu.clock.advance(60_000);
    emu.faults.failNext({ method: 'PATCH', path: V2_ONE, status: 502 });
    await cloudFloatingIp.apply(h.ctx, change);
    expect(patches()).toHaveLength(1);
  });
});

describe('cloud_floating_ip apply of a change without its payload', () => {
  it('refuses a change without tags_patch and sends nothing (it would otherwise remove every user tag)', async () => {
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    for (const payload of [undefined, {}]) {
      const broken = { ...change, payload };
      if (payload === undefined) delete broken.payload;
      await expect(cloudFloatingIp.apply(h.ctx, broken)).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD', message: expect.stringContaining('tags_patch') });
    }
    expect(h.sent.filter((r) => r.method === 'PATCH')).toEqual([]);
    expect(liveTags(DEMO.fip)).toEqual(['env=staging', 'managed-by=platform (read-only)', 'owner=alice', 'team=edge']);
  });

  it('sends tags: null when the payload says so explicitly', async () => {
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    await cloudFloatingIp.apply(h.ctx, { ...change, payload: { tags_patch: null } });
    expect(h.sent.filter((r) => r.method === 'PATCH').map((r) => r.body)).toEqual([{ tags: null }]);
  });
});

describe('cloud_floating_ip apply when another task holds the lock during recovery', () => {
  const FIP_PATH = `/cloud/v2/floatingips/1/76/${DEMO.fip}`;
  const ours = { tags: { env: 'prod', owner: null } };
  const patches = () => h.sent.filter((r) => r.method === 'PATCH');
  /** Starts someone else's tags change on the IP; its task holds the lock for the emulator's task duration. */
  const foreignPatch = async (): Promise<string> => {
    const started = await emu.call('PATCH', FIP_PATH, { body: { tags: { tier: 'gold' } } });
    expect(started.status).toBe(200);
    return (started.body.tasks as string[])[0]!;
  };

  it('still applies our patch after the foreign task finishes when the PATCH answered 502, with at most 3 PATCHes', async () => {
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    const foreignTask = await foreignPatch();
    emu.faults.failNext({ method: 'PATCH', path: V2_ONE, status: 502 });
    await cloudFloatingIp.apply(h.ctx, change);

    expect(patches().length).toBeLessThanOrEqual(3);
    expect(patches().map((r) => r.body)).toEqual([ours, ours]);
    expect(h.sent).toContainEqual({ method: 'GET', path: `/cloud/v1/tasks/${foreignTask}` });
    expect(h.progress.some((p) => p.includes(`[task ${foreignTask}]`))).toBe(true);
    const tasks = [...emu.state.tasks.values()].filter((t) => t.task_type === 'update_floating_ip');
    expect(tasks.map((t) => t.data)).toEqual([{ tags: { tier: 'gold' } }, ours]);
    expect(emu.state.floatingIps.get(DEMO.fip)!.task_id).toBeNull();
    expect(liveTags(DEMO.fip)).toEqual(['env=prod', 'managed-by=platform (read-only)', 'team=edge', 'tier=gold']);
  });

  it('waits on the lock when a resend is answered 409, then sends again and succeeds', async () => {
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    emu.requests.length = 0;
    emu.faults.failNext({ method: 'PATCH', path: V2_ONE, status: 502 });
    // Someone else's task takes the lock while we back off before the resend.
    let foreignTask: string | undefined;
    const ctx = {
      ...h.ctx,
      sleep: async (ms: number) => {
        await h.ctx.sleep(ms);
        foreignTask ??= await foreignPatch();
      },
    };
    await cloudFloatingIp.apply(ctx, change);

    expect(foreignTask).toBeDefined();
    expect(patches().map((r) => r.body)).toEqual([ours, ours, ours]);
    // Ours: 502, then 409 (the foreign task's lock), then accepted; the foreign PATCH in between.
    expect(emu.requests.filter((r) => r.method === 'PATCH').map((r) => r.status)).toEqual([502, 200, 409, 200]);
    expect(h.sent).toContainEqual({ method: 'GET', path: `/cloud/v1/tasks/${foreignTask!}` });
    expect(liveTags(DEMO.fip)).toEqual(['env=prod', 'managed-by=platform (read-only)', 'team=edge', 'tier=gold']);
  });

  it('stops waiting on a lock that never clears after 3 tasks and sends nothing more', async () => {
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    const foreignTask = await foreignPatch();
    emu.clock.advance(60_000);
    await emu.call('GET', `/cloud/v1/floatingips/1/76/${DEMO.fip}`);
    // A stale lock: the finished task's id stays on the IP.
    emu.state.floatingIps.get(DEMO.fip)!.task_id = foreignTask;
    emu.faults.failNext({ method: 'PATCH', path: V2_ONE, status: 502 });
    const error = await cloudFloatingIp.apply(h.ctx, change).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StillLockedError);
    expect(error).toMatchObject({ code: 'EDGEFORM_STILL_LOCKED', taskId: foreignTask });
    expect(patches()).toHaveLength(1);
  });

  it('gives up with the 409 when every send is used up', async () => {
    const change = await planChange(h.ctx, resource('cloud_floating_ip', 'web_ip', desired()));
    emu.faults.failNext({ method: 'PATCH', path: V2_ONE, status: 502 });
    emu.faults.failNext({ method: 'PATCH', path: V2_ONE, status: 409, count: 10 });
    const error = await cloudFloatingIp.apply(h.ctx, change).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(patches()).toHaveLength(3);
    expect(liveTags(DEMO.fip)).toEqual(['env=staging', 'managed-by=platform (read-only)', 'owner=alice', 'team=edge']);
  });
});
