import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmulatorFixturesError, demoFixturesPath, loadFixtures, startEmulator } from '../../../src/emulator/index.js';

function writeTemp(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgeform-emu-'));
  const file = join(dir, 'fixtures.yaml');
  writeFileSync(file, text);
  return file;
}

describe('emulator fixtures', () => {
  it('the demo world matches docs/demo-world.md', () => {
    const f = loadFixtures(demoFixturesPath);
    expect(f.floating_ips.map((x) => x.id)).toEqual(['726ecfcc-7fd0-4e30-a86e-7892524aa483', '5f0c3a1e-2b7d-4c9a-8e61-0d2b3c4f5a6b']);
    expect(f.ai_tasks).toHaveLength(15);
    const byStatus = (s: string) => f.ai_tasks.filter((t) => t.status === s);
    expect(byStatus('SUCCESS')).toHaveLength(12);
    expect(byStatus('STARTED')).toHaveLength(1);
    expect(byStatus('PENDING')).toHaveLength(1);
    expect(byStatus('FAILURE').map((t) => t.task_name)).toEqual(['content-moderation']);
    expect(f.k8s_versions).toEqual(['v1.28.9', 'v1.29.8', 'v1.30.6', 'v1.31.3', 'v1.32.1']);
    expect(f.quota_requests.map((q) => [q.id, q.status])).toEqual([
      [42, 'in progress'],
      [43, 'done'],
    ]);
  });

  it('names the file, the path and the problem for an invalid value', () => {
    const file = writeTemp('floating_ips:\n  - id: 726ecfcc-7fd0-4e30-a86e-7892524aa483\n    status: BROKEN\n');
    expect(() => loadFixtures(file)).toThrow(EmulatorFixturesError);
    expect(() => loadFixtures(file)).toThrow(/fixtures\.yaml: floating_ips\[0\]\.status: /);
  });

  it('reports an unknown section', () => {
    expect(() => loadFixtures({ floating_ip: [] } as never)).toThrow(/floating_ip/);
  });

  it('reports duplicate ids', () => {
    expect(() =>
      loadFixtures({
        streaming_players: [
          { id: 1, name: 'a' },
          { id: 1, name: 'b' },
        ],
      }),
    ).toThrow(/streaming_players\[1\]: duplicate id 1/);
  });

  it('reports YAML syntax errors', () => {
    expect(() => loadFixtures(writeTemp('floating_ips: [\n'))).toThrow(/not valid YAML/);
  });

  it('reports a missing file', () => {
    expect(() => loadFixtures('/no/such/fixtures.yaml')).toThrow(/cannot read fixtures file/);
  });

  it('accepts an object of the same shape and starts from it', async () => {
    const emu = await startEmulator({ port: 0, fixtures: { streaming_players: [{ id: 5, name: 'p' }] } });
    try {
      expect([...emu.state.players.keys()]).toEqual([5]);
    } finally {
      await emu.close();
    }
  });

  it('rejects invalid options', async () => {
    await expect(startEmulator({ port: 0, failRate: 2 })).rejects.toThrow(/failRate/);
  });
});
