import { describe, expect, it } from 'vitest';
import { startInSync } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { closeAfterEach, DEMO, type TestEmulator } from '../../helpers/emulator.js';
import { closedPort } from '../../helpers/loopback-server.js';

describe('edgeform drift', () => {
  let emu: TestEmulator;
  let env: Record<string, string>;
  let stack: string;

  closeAfterEach(() => [emu]);
  async function start(): Promise<void> {
    ({ emu, env, stack } = await startInSync());
  }

  const drift = (...args: string[]) => runCliInProcess(['drift', stack, ...args], { env });

  it('exits 0 with "No drift" when the platform matches the stack', async () => {
    await start();
    const result = await drift();
    expect(result.stdout).toBe('No drift. 5 resources and 1 check match the stack.\n');
    expect(result.code).toBe(0);
  });

  it('exits 2 naming flavor_id after the instance was resized behind the stack', async () => {
    await start();
    emu.state.instances.get(DEMO.instance)!.flavor_id = 'g2-standard-8-16';
    const result = await drift();
    expect(result.stdout).toContain('~ cloud_instance.web_vm has drifted\n      flavor_id  stack: "g2-standard-2-4"  platform: "g2-standard-8-16"\n');
    expect(result.code).toBe(2);
  });

  it('exits 2 saying a resource the stack wants present no longer exists', async () => {
    await start();
    emu.state.fastedgeApps.delete(1300);
    const result = await drift();
    expect(result.stdout).toContain('! fastedge_app.router no longer exists on the platform, but the stack says ensure: present');
    expect(result.stdout).not.toContain('error');
    expect(result.code).toBe(2);
  });

  it('exits 2 saying a resource the stack wants absent exists again', async () => {
    await start();
    emu.state.fastedgeApps.set(4321, { ...emu.state.fastedgeApps.get(1300)!, id: 4321, name: 'revenant' });
    const result = await drift();
    expect(result.stdout).toContain('! fastedge_app.gone_app exists on the platform, but the stack says ensure: absent');
    expect(result.code).toBe(2);
  });

  it('exits 2 reporting a failing check', async () => {
    await start();
    emu.state.videos.get(9876)!.subtitles = emu.state.videos.get(9876)!.subtitles.filter((s) => s.language !== 'ger');
    const result = await drift();
    expect(result.stdout).toContain('Drift detected: 1 check failing.');
    expect(result.stdout).toContain('✗ streaming_video_subtitles.subtitles: check failed: video 9876 is missing subtitles in ger (present: eng)');
    expect(result.code).toBe(2);
  });

  it('exits 1, never "in sync", when the API is unreachable, with one error line naming the platform', async () => {
    await start();
    const url = await closedPort();
    const result = await runCliInProcess(['drift', stack], { env: { ...env, EDGEFORM_BASE_URL: url } });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('No drift');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^Error: the platform at ${url}/? is unavailable: GET .*ECONNREFUSED`))]);
  });

  it('--format json keeps a stable structure', async () => {
    await start();
    await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { tags: { env: 'dev', owner: null } } });
    emu.state.fastedgeApps.delete(1300);
    const result = await drift('--format', 'json');
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report.base_url).toBe(emu.url);
    expect(new Date(report.created_at as string).toISOString()).toBe(report.created_at);
    expect((report.stack as { digest: string }).digest).toMatch(/^[0-9a-f]{64}$/);
    expect({ ...report, created_at: '<timestamp>', base_url: '<url>', stack: { sources: '<sources>', digest: '<sha256>' } }).toMatchInlineSnapshot(`
      {
        "base_url": "<url>",
        "created_at": "<timestamp>",
        "drifted": [
          {
            "address": "cloud_floating_ip.web_ip",
            "fields": [
              {
                "field": "tags.env",
                "platform": "dev",
                "stack": "staging",
              },
              {
                "field": "tags.owner",
                "stack": "alice",
              },
            ],
            "kind": "changed",
            "message": "2 declared fields differ",
            "type": "cloud_floating_ip",
          },
          {
            "address": "fastedge_app.router",
            "fields": [],
            "kind": "missing",
            "message": "no longer exists on the platform, but the stack says ensure: present",
            "type": "fastedge_app",
          },
        ],
        "errors": [],
        "exit_code": 2,
        "exit_meaning": "drift found",
        "failing_checks": [],
        "format_version": "1.0",
        "in_sync": false,
        "stack": {
          "digest": "<sha256>",
          "sources": "<sources>",
        },
        "summary": {
          "checks": 1,
          "drifted": 2,
          "errors": 0,
          "failing_checks": 0,
          "resources": 5,
        },
      }
    `);
  });

  it('--format markdown shows drifted fields in a table', async () => {
    await start();
    await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fip}`, { body: { tags: { env: 'dev' } } });
    emu.state.fastedgeApps.delete(1300);
    const result = await drift('--format', 'markdown');
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(
      [
        '| resource | field | stack | platform |',
        '|---|---|---|---|',
        '| `cloud_floating_ip.web_ip` | `tags.env` | `"staging"` | `"dev"` |',
        '| `fastedge_app.router` | | present | **gone** |',
      ].join('\n'),
    );
  });
});
