import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/import.js';

const FIXTURES = {
  cdn_origin_groups: [
    {
      id: 10,
      name: 'web-origins',
      use_next: true,
      proxy_next_upstream: ['error', 'timeout'],
      sources: [{ source: 'origin.example.com' }, { source: 'spare.example.com', backup: true }],
    },
  ],
  cdn_resources: [
    {
      id: 220,
      cname: 'cdn.example.com',
      originGroup: 10,
      description: 'main [edgeform:prod]',
      secondaryHostnames: ['www-cdn.example.com'],
      options: { gzipOn: { enabled: true, value: true }, edge_cache_settings: { enabled: true, value: '4d' } },
    },
  ],
  cdn_rules: [{ id: 5, resource: 220, name: 'images', rule: '/images/.*', originGroup: 10, options: { edge_cache_settings: { enabled: true, value: '30d' } } }],
};

describe('edgeform import of CDN kinds', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it('imports the origin group, the resource and its rule with references between them, and the result plans clean', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES });
    const env = emulatorEnv(emu);
    const file = join(tempDir(), 'stack.yaml');
    const imported = await runCliInProcess(['import', '--all', '--out', file], { env });
    expect(imported.code, imported.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('origin_group: "${cdn_origin_group.web-origins.id}"');
    expect(text).toContain('resource_id: "${cdn_resource.cdn_example_com.id}"');
    expect(text).toContain('description: main\n');
    expect(text).toContain('gzipOn:');
    const plan = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes');
  });
});
