import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../helpers/apply.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { writeStackFiles } from '../helpers/stack-files.js';

/**
 * The key must never be printed, whatever route it takes into the output. Here a stack pulls
 * it into a tag value through another variable (MY_TOKEN holds the same text), so it appears
 * in plans, drift reports and apply progress unless the output boundary redacts it.
 */
describe('the API key never appears in output', () => {
  let emu: TestEmulator;
  let dir: string;
  let env: Record<string, string>;
  const outputs: CliResult[] = [];

  beforeEach(async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    dir = writeStackFiles({
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
    env = { ...emulatorEnv(emu), MY_TOKEN: emu.apiKey };
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

  const run = async (args: string[]) => {
    const result = await runCli(args, { env });
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
    const refused = await runCli(['plan', join(dir, 'stack.yaml')], { env: { ...env, EDGEFORM_BASE_URL: `http://example.com/${emu.apiKey}` } });
    outputs.push(refused);
    expect(refused.code).toBe(1);
  });
});
