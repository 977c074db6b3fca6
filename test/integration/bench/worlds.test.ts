/**
 * The worlds `npm run bench` generates are what it claims to measure: valid stacks, fixtures
 * the emulator loads, and plans without errors that change what the benchmark says they change.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteAppsWorld, floatingIpWorld, identityWorld, mixedWorld, resizeWorld, zoneFileWorld, type World } from '../../../bench/worlds.js';
import { MAX_ZONE_FILE_BYTES } from '../../../src/kinds/dns-zone/schema.js';
import { planStack } from '../../../src/cli/plan-stack.js';
import { startEmulator } from '../../../src/emulator/index.js';

const dir = mkdtempSync(join(tmpdir(), 'edgeform-bench-worlds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function planWorld(world: World) {
  const emu = await startEmulator({ port: 0, fixtures: world.fixtures });
  try {
    const result = await planStack({
      path: world.stack,
      env: { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey },
      parallelism: 10,
      targets: [],
      signal: new AbortController().signal,
    });
    if (result.kind !== 'planned') throw new Error(`invalid bench stack: ${result.diagnostics.map((d) => d.summary).join('; ')}`);
    await result.api.close();
    return { plan: result.plan };
  } finally {
    await emu.close();
  }
}

describe('the benchmark worlds', () => {
  it('the zone file world is the largest zone file allowed, one record set a line, in a zone the platform has', () => {
    const world = zoneFileWorld(dir);
    const zone = join(dir, 'largest.zone');
    expect(statSync(zone).size).toBeLessThanOrEqual(MAX_ZONE_FILE_BYTES);
    expect(statSync(zone).size).toBeGreaterThan(MAX_ZONE_FILE_BYTES - 32);
    const lines = readFileSync(zone, 'utf8').trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual(['$ORIGIN example.com.', '$TTL 300', 'hos000000 A 10.0.0.0']);
    expect(world.resources).toBe(lines.length - 2 + 1);
    expect(world.resources).toBeGreaterThan(170_000);
    expect(world.inputBytes).toBe(statSync(zone).size + statSync(world.stack).size);
    expect(JSON.parse(readFileSync(world.fixtures, 'utf8'))).toEqual({ dns_zones: [{ name: 'example.com' }] });
  });

  it('retags every floating IP of the floating IP world, all in one list page', async () => {
    const world = floatingIpWorld(dir, 30);
    const { plan } = await planWorld(world);
    expect(plan.errored).toBe(false);
    expect(plan.summary.change).toBe(30);
    expect(world.listPages).toBe(1);
  });

  it('resizes every instance of the resize world', async () => {
    const { plan } = await planWorld(resizeWorld(dir, 5));
    expect(plan.errored).toBe(false);
    expect(plan.resource_changes.map((c) => c.action)).toEqual(Array(5).fill('update'));
  });

  it('plans every kind of the mixed world without an error, spread over ten project/regions', async () => {
    const world = mixedWorld(dir, 100);
    const { plan } = await planWorld(world);
    expect(plan.errored).toBe(false);
    expect(plan.resource_changes).toHaveLength(100);
    expect(new Set(plan.resource_changes.map((c) => c.type)).size).toBe(7);
    const placements = plan.resource_changes.flatMap((c) => ('region_id' in c.desired ? [`${c.desired.project_id}/${c.desired.region_id}`] : []));
    expect(new Set(placements).size).toBe(10);
    expect(plan.summary.change).toBeGreaterThan(0);
    expect(plan.summary.destroy).toBeGreaterThan(0);
    expect(world.listPages).toBeGreaterThan(10);
  });

  it('finds every block of the identity world by its ownership tags or name: a no-op when converged, a create each when the platform holds none', async () => {
    const converged = identityWorld(dir, 12, 8, true);
    const { plan } = await planWorld(converged);
    expect(plan.errored).toBe(false);
    expect(plan.resource_changes.map((c) => c.action)).toEqual(Array(20).fill('no-op'));
    expect(plan.resource_changes.every((c) => c.before !== null && (c.before.floating_ip_id ?? c.before.app_id) !== undefined)).toBe(true);
    expect(converged.listPages).toBe(2);
    const empty = await planWorld(identityWorld(dir, 12, 8, false));
    expect(empty.plan.errored).toBe(false);
    expect(empty.plan.resource_changes.map((c) => c.action)).toEqual(Array(20).fill('create'));
  });

  it('deletes every app of the scheduling world, independently of each other, waiting on no task', async () => {
    const world = deleteAppsWorld(dir, 40);
    const { plan } = await planWorld(world);
    expect(plan.errored).toBe(false);
    expect(plan.resource_changes.map((c) => c.action)).toEqual(Array(40).fill('delete'));
    expect(plan.resource_changes.every((c) => c.depends_on.length === 0 && c.type === 'fastedge_app')).toBe(true);
    expect(world.listPages).toBe(1);
  });
});
