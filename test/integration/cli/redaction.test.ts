import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * The key must never be printed, whatever route it takes into the output. A stack can no
 * longer bring it in (a value that equals or contains EDGEFORM_API_KEY is an error, tested
 * at the end), so here the platform does: the floating IP carries a tag whose value is the
 * key (the platform stores what it was once sent), so it appears in plans, drift reports and
 * apply progress unless the output boundary redacts it.
 */
describe('the API key never appears in output', () => {
  let emu: TestEmulator;
  let dir: string;
  let env: Record<string, string>;
  const outputs: CliResult[] = [];

  beforeEach(async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const seeded = await emu.call('PATCH', `/cloud/v1/floatingips/1/76/${DEMO.fip}`, { body: { tags: { note: emu.apiKey } } });
    expect(seeded.status).toBe(200);
    dir = writeStackFiles({
      'stack.yaml': [
        'version: 1',
        'defaults: { project_id: 1, region_id: 76 }',
        'resources:',
        '  web_ip:',
        '    type: cloud_floating_ip',
        `    floating_ip_id: ${DEMO.fip}`,
        '    tags: { env: prod, team: edge }',
        '',
      ].join('\n'),
    });
    env = emulatorEnv(emu);
  });

  afterEach(async () => {
    for (const o of outputs.splice(0)) {
      for (const text of [o.stdout, o.stderr]) {
        expect(text).not.toContain(emu.apiKey);
        expect(text).not.toContain(encodeURIComponent(emu.apiKey));
      }
    }
    await emu.close();
  });

  const run = async (args: string[], extraEnv: Record<string, string> = {}) => {
    const result = await runCliInProcess(args, { env: { ...env, ...extraEnv } });
    outputs.push(result);
    return result;
  };

  it('in plan text, JSON and Markdown, and in the plan file', async () => {
    for (const format of ['text', 'json', 'markdown']) {
      const r = await run(['plan', join(dir, 'stack.yaml'), '--format', format]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('[REDACTED]');
    }
    const file = join(dir, 'plan.json');
    await run(['plan', join(dir, 'stack.yaml'), '--out', file]);
    expect(readFileSync(file, 'utf8')).not.toContain(emu.apiKey);
  });

  it('in apply progress, its plan and its JSON events', async () => {
    const r = await run(['apply', join(dir, 'stack.yaml'), '--auto-approve']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[REDACTED]');
    emu.reset();
    await emu.call('PATCH', `/cloud/v1/floatingips/1/76/${DEMO.fip}`, { body: { tags: { note: emu.apiKey } } });
    const json = await run(['apply', join(dir, 'stack.yaml'), '--auto-approve', '--format', 'json']);
    expect(json.code).toBe(0);
  });

  it('in drift text and JSON', async () => {
    for (const format of ['text', 'json', 'markdown']) {
      const r = await run(['drift', join(dir, 'stack.yaml'), '--format', format]);
      expect(r.code).toBe(2);
      expect(r.stdout).toContain('[REDACTED]');
    }
  });

  it('in validate output and error messages', async () => {
    const r = await run(['validate', join(dir, 'stack.yaml'), '--format', 'json']);
    expect(r.code).toBe(0);
    const refused = await run(['plan', join(dir, 'stack.yaml')], { EDGEFORM_BASE_URL: `http://example.com/${emu.apiKey}` });
    expect(refused.code).toBe(1);
  });

  it('is refused in a stack value, also through another variable, by every command, and never reaches the platform', async () => {
    const pulled = writeStackFiles({
      'stack.yaml': [
        'version: 1',
        'defaults: { project_id: 1, region_id: 76 }',
        'resources:',
        '  web_ip:',
        '    type: cloud_floating_ip',
        `    floating_ip_id: ${DEMO.fip}`,
        '    tags: { env: prod, team: edge, note: "${env:MY_TOKEN}" }',
        '',
      ].join('\n'),
    });
    const path = join(pulled, 'stack.yaml');
    const before = emu.requests.length;
    for (const args of [
      ['validate', path],
      ['plan', path],
      ['apply', path, '--auto-approve'],
      ['drift', path],
    ]) {
      const r = await run(args, { MY_TOKEN: emu.apiKey });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${path}:7:42: error: this value contains the API key (the value of EDGEFORM_API_KEY); a stack never holds secrets`);
      expect(r.stderr).toContain('It comes from ${env:MY_TOKEN}; the value is not shown.');
      expect(r.stderr).not.toContain('[REDACTED]');
    }
    expect(emu.requests.length).toBe(before);
  });
});
