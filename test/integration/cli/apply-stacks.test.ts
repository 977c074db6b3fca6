import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_DIR_ENV, StackLocks } from '../../../src/cli/stack-lock.js';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, useCliEmulators } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** A stack `name` with one floating IP `ip` in project 1, `region`, whose tag `upstream` may read another stack. */
const stack = (name: string, region: number, upstream?: string) => `version: 1
name: ${name}
defaults: { project_id: 1, region_id: ${region} }
resources:
  ip:
    type: cloud_floating_ip
    tags: { upstream: "${upstream ?? 'none'}" }
`;

const writes = (emu: TestEmulator) => emu.requests.filter((r) => r.method !== 'GET' && !r.path.startsWith('/__emulator/')).map((r) => `${r.method} ${r.path}`);
const ownedBy = (emu: TestEmulator, name: string) => [...emu.state.floatingIps.values()].filter((f) => f.tags.some((t) => t.key === 'edgeform-stack' && t.value === name));

describe('apply --stacks: the fleet applied in the order its ${stack:...} references make', () => {
  const start = useCliEmulators();

  it('applies what a stack reads first, stops the dependants of a failed stack, and reports applied, failed, not started', async () => {
    const { emu, env } = await start();
    // Named so that the fleet's own order (by path) is the wrong one: only the references order them.
    const root = writeStackFiles({
      '1-web.yaml': stack('web', 76, '${stack:net/cloud_floating_ip.ip.floating_ip_address}'),
      '2-net.yaml': stack('net', 76),
      '3-leaf.yaml': stack('leaf', 77, '${stack:mid/cloud_floating_ip.ip.id}'),
      '4-mid.yaml': stack('mid', 77),
      '5-solo.yaml': stack('solo', 78),
    });
    // mid's create is refused by the platform.
    emu.faults.failNext({ method: 'POST', path: '/cloud/v1/floatingips/1/77', status: 400, count: 1 });

    const run = await runCliInProcess(['apply', '--stacks', root, '--auto-approve'], { env });
    expect(run.code).toBe(1);
    const order = [...run.stdout.matchAll(/=== apply (\S+) /g)].map((m) => m[1]);
    expect(order).toEqual(['net', 'mid', 'solo', 'web']);
    expect(run.stdout).toContain('Stacks: 3 applied, 1 failed, 1 not started.');
    expect(run.stdout).toContain(`not started: leaf (${join(root, '3-leaf.yaml')}): it reads "mid", which did not apply`);
    expect(run.stdout).toContain(`failed:      mid (${join(root, '4-mid.yaml')})`);

    // web's tag holds the address net's apply made: planned after net was applied.
    const [net] = ownedBy(emu, 'net');
    const [web] = ownedBy(emu, 'web');
    expect(web!.tags.find((t) => t.key === 'upstream')?.value).toBe(net!.floating_ip_address);
    expect(ownedBy(emu, 'leaf')).toEqual([]);
    expect(writes(emu).filter((w) => w.includes('/1/77'))).toEqual(['POST /cloud/v1/floatingips/1/77']);

    // A second run converges: mid is created, then leaf reading it; the rest has nothing to do.
    emu.requests.length = 0;
    const again = await runCliInProcess(['apply', '--stacks', root, '--auto-approve'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('Stacks: 5 applied, 0 failed, 0 not started.');
    expect(writes(emu)).toEqual(['POST /cloud/v1/floatingips/1/77', 'POST /cloud/v1/floatingips/1/77']);
    expect(ownedBy(emu, 'leaf')[0]!.tags.find((t) => t.key === 'upstream')?.value).toBe(ownedBy(emu, 'mid')[0]!.id);
  });

  it('refuses a cycle between stacks, naming them, before anything is sent', async () => {
    const { emu } = await start();
    const root = writeStackFiles({
      'a.yaml': stack('a', 76, '${stack:b/cloud_floating_ip.ip.id}'),
      'b.yaml': stack('b', 76, '${stack:a/cloud_floating_ip.ip.id}'),
    });
    const run = await runCliInProcess(['apply', '--stacks', root, '--auto-approve'], { env: emulatorEnv(emu) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the stacks read each other in a cycle: a -> b -> a');
    expect(run.stdout).toContain('Stacks: 0 applied, 2 failed, 0 not started.');
    expect(emu.requests.filter((r) => !r.path.startsWith('/__emulator/'))).toEqual([]);
  });

  it('takes the lock of each stack: a stack another apply holds fails, its readers are not started, the rest applies', async () => {
    const { emu } = await start();
    const root = writeStackFiles({
      'net.yaml': stack('net', 76),
      'web.yaml': stack('web', 76, '${stack:net/cloud_floating_ip.ip.id}'),
      'solo.yaml': stack('solo', 78),
    });
    const env = { ...emulatorEnv(emu), [LOCK_DIR_ENV]: mkdtempSync(join(tmpdir(), 'edgeform-fleet-locks-')) };
    const holder = new StackLocks({ command: 'edgeform apply net.yaml (another apply)', warn: () => {} });
    await holder.holdPath(join(root, 'net.yaml'));
    try {
      const run = await runCliInProcess(['apply', '--stacks', root, '--auto-approve'], { env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('edgeform apply net.yaml (another apply)');
      expect(run.stdout).toContain('Stacks: 1 applied, 1 failed, 1 not started.');
      expect(run.stdout).toContain(`not started: web (${join(root, 'web.yaml')}): it reads "net", which did not apply`);
      expect(writes(emu)).toEqual(['POST /cloud/v1/floatingips/1/78']);
    } finally {
      await holder.release();
    }
  });
});
