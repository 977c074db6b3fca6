import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** A saved plan is data that travels between CI jobs: it must never decide where the key is sent. */
describe('apply PLANFILE sends the key only where this run is configured to', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of cleanup.splice(0)) await close();
  });

  async function emulator(): Promise<TestEmulator> {
    const emu = await startTestEmulator({ taskDurationMs: 0 });
    cleanup.push(() => emu.close());
    return emu;
  }

  /** A stack directory with stack.yaml; plan and apply run in it, as a pipeline runs in its checkout. */
  function stackFor(baseUrl?: string): string {
    const dir = writeStackFiles({
      'stack.yaml': [
        'version: 1',
        ...(baseUrl ? ['provider:', `  base_url: ${baseUrl}`] : []),
        'defaults: { project_id: 1, region_id: 76 }',
        'resources:',
        `  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8 }`,
        '',
      ].join('\n'),
    });
    return dir;
  }

  it('refuses a plan whose base_url points elsewhere, even with EDGEFORM_BASE_URL unset, and sends nothing', async () => {
    const emu = await emulator();
    const cwd = stackFor();
    const file = join(cwd, 'plan.json');
    const env = { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey, EDGEFORM_TASK_POLL_INTERVAL: '20' };
    expect((await runCliInProcess(['plan', 'stack.yaml', '--out', file], { env, cwd })).code).toBe(0);

    // Someone edits the plan to point at their own listener.
    const seen: IncomingHttpHeaders[] = [];
    const listener = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => listener.close(() => resolve())));
    const evil = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), base_url: evil }));

    const result = await runCliInProcess(['apply', file], { env: { EDGEFORM_API_KEY: emu.apiKey }, cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the saved plan was made against ${evil}, but this run would talk to https://api.gcore.com`);
    expect(result.stderr).toContain(`set EDGEFORM_BASE_URL=${evil}`);
    expect(seen).toEqual([]);
    expect(emu.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it("applies a plan made against the stack's provider.base_url without EDGEFORM_BASE_URL", async () => {
    const emu = await emulator();
    const cwd = stackFor(emu.url);
    const file = join(cwd, 'plan.json');
    const env = { EDGEFORM_API_KEY: emu.apiKey, EDGEFORM_TASK_POLL_INTERVAL: '20' };
    expect((await runCliInProcess(['plan', 'stack.yaml', '--out', file], { env, cwd })).code).toBe(0);

    const result = await runCliInProcess(['apply', file], { env, cwd });
    expect(result.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
    expect(result.code).toBe(0);
    expect(emu.state.instances.get(DEMO.instance)!.flavor_id).toBe('g2-standard-4-8');
  });
});

describe('apply PLANFILE evaluates the checks that gate resources again', () => {
  it('skips a resource whose gating check passed when planned but fails now', async () => {
    const emu = await startTestEmulator({ taskDurationMs: 0 });
    try {
      const dir = writeStackFiles({
        'stack.yaml': [
          'version: 1',
          'defaults: { project_id: 1, region_id: 76 }',
          'resources:',
          `  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8, depends_on: [streaming_video_subtitles.tour] }`,
          'checks:',
          '  tour: { type: streaming_video_subtitles, video_id: 9877, languages: [eng] }',
          '',
        ].join('\n'),
      });
      const env = { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey, EDGEFORM_TASK_POLL_INTERVAL: '20' };
      const file = join(dir, 'plan.json');
      expect((await runCliInProcess(['plan', 'stack.yaml', '--out', file], { env, cwd: dir })).code).toBe(0);

      // The English subtitles are withdrawn between plan and apply.
      emu.state.videos.get(9877)!.subtitles = [];

      const result = await runCliInProcess(['apply', file], { env, cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('streaming_video_subtitles.tour: was pass when planned, is fail now');
      expect(result.stdout).toContain('cloud_instance.web_vm: depends on streaming_video_subtitles.tour, which is failing');
      expect(emu.requests.filter((r) => r.method === 'POST')).toEqual([]);
    } finally {
      await emu.close();
    }
  });
});
