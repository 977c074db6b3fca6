import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../helpers/apply.js';
import { runCli } from '../helpers/cli.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { writeStackFiles } from '../helpers/stack-files.js';

/** A stack that matches the demo world exactly (docs/demo-world.md). */
const IN_SYNC = `version: 1
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

/** drift through the built executable: exit 2 on drift. The rest is held in-process (test/integration/cli/drift.test.ts). */
describe('edgeform drift (built CLI)', () => {
  let emu: TestEmulator;
  let env: Record<string, string>;
  let stack: string;

  async function start(): Promise<void> {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    env = emulatorEnv(emu);
    stack = join(writeStackFiles({ 'stack.yaml': IN_SYNC }), 'stack.yaml');
  }

  afterEach(async () => {
    await emu?.close();
  });

  const drift = (...args: string[]) => runCli(['drift', stack, ...args], { env });

  it('exits 2 naming the tag, with stack and platform values, after a tag change through the API', async () => {
    await start();
    await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { tags: { env: 'dev' } } });
    const result = await drift();
    expect(result.stdout).toBe(
      ['Drift detected: 1 resource differs from the stack.', '', '  ~ cloud_floating_ip.web_ip has drifted', '      tags.env  stack: "staging"  platform: "dev"', ''].join('\n'),
    );
    expect(result.code).toBe(2);
  });
});
