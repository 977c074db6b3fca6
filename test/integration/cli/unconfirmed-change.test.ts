/**
 * A change the platform acknowledged stands when only the read that confirms it fails, also when
 * that read fails because the platform went down (the run's outage breaker declares it
 * unavailable, a run-fatal error): apply reports the change applied with a warning naming it and
 * exits 0, as docs/commands.md says. What the run could not start after that still fails it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { waitFor } from '../../helpers/wait.js';

const FIP_PATH = `/cloud/v1/floatingips/1/76/${DEMO.fip}`;
const PATCH = `PATCH /cloud/v2/floatingips/1/76/${DEMO.fip}`;
const HEADER = 'version: 1\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n';
const WEB_IP = `  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags_policy: merge, tags: { env: unconfirmed } }\n`;

let emu: TestEmulator | undefined;
closeAfterEach(() => [emu]);

/**
 * Runs `edgeform apply` on `yaml` against a seeded emulator whose tasks wait on its clock: once the
 * floating IP's PATCH was sent, every read of the IP answers 503 (the platform is down for it),
 * then its task finishes. Nothing here waits on the wall clock: each step waits for a request.
 */
async function applyWhileReadsFail(yaml: string, format: 'text' | 'json' = 'text') {
  emu = await startTestEmulator({ seed: 7, taskDurationMs: 10_000 });
  const e = emu;
  const stack = join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');
  const run = runCliInProcess(['apply', stack, '--auto-approve', '--format', format, '--max-tasks', '1'], { env: emulatorEnv(e) });
  await waitFor(() => writesSeen(e).includes(PATCH), { what: 'the PATCH of the floating IP' });
  e.faults.failNext({ method: 'GET', path: FIP_PATH, status: 503, count: 1_000 });
  // The task the PATCH started finishes; its poll succeeds, the confirming reads do not.
  e.clock.advance(10_000);
  const result = await run;
  return { result, e };
}

describe('apply when only the read that confirms an acknowledged change fails (platform unavailable)', () => {
  it('exits 0: the change is applied, with a warning naming it and the unavailable platform', async () => {
    const { result, e } = await applyWhileReadsFail(HEADER + WEB_IP);

    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /cloud_floating_ip\.web_ip: warning: the platform acknowledged the change, but the read that confirms it failed: the platform at \S+ is unavailable: GET \/cloud\/v1\/floatingips\/.*503 Service Unavailable.*Run edgeform plan to check it\./,
    );
    expect(result.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
    expect(result.stdout).toMatch(/Warnings \(1\):\n {2}cloud_floating_ip\.web_ip: the platform acknowledged the change/);
    expect(result.stdout).not.toContain('Apply failed');
    expect(result.stdout).not.toContain('apply again');
    // The change was made once, and the confirming read was what failed.
    expect(writesSeen(e)).toEqual([PATCH]);
    expect(e.state.floatingIps.get(DEMO.fip)!.tags.find((t) => t.key === 'env')?.value).toBe('unconfirmed');
    expect(e.requests.filter((r) => r.method === 'GET' && r.path === FIP_PATH && r.status === 503).length).toBeGreaterThanOrEqual(3);
  });

  it('--format json: the change is applied with its warning, change_summary has no run_error, exit 0', async () => {
    const { result } = await applyWhileReadsFail(HEADER + WEB_IP, 'json');

    expect(result.code, result.stdout + result.stderr).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = events.at(-1)!;
    expect(summary).toMatchObject({ type: 'change_summary', change: 1, failed: 0, warned: 1, run_error: null });
    expect(summary.resources).toEqual([
      expect.objectContaining({
        address: 'cloud_floating_ip.web_ip',
        status: 'applied',
        warnings: [expect.stringMatching(/^the platform acknowledged the change, but the read that confirms it failed: the platform at \S+ is unavailable/)],
      }),
    ]);
  });

  it('exits 1 when the outage kept another change from starting: the unconfirmed one stays applied with its warning', async () => {
    const player = '  old_player: { type: streaming_player, player_id: 55, ensure: absent, depends_on: [cloud_floating_ip.web_ip] }\n';
    const { result, e } = await applyWhileReadsFail(HEADER + WEB_IP + player);

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /cloud_floating_ip\.web_ip: warning: the platform acknowledged the change, but the read that confirms it failed: the platform at \S+ is unavailable/,
    );
    expect(result.stdout).toContain('Apply failed. Resources: 0 added, 1 changed, 0 destroyed.');
    expect(result.stdout).toContain('Not started (1): the run stopped on the error above before anything was sent for them.');
    expect(writesSeen(e)).toEqual([PATCH]);
  });
});
