import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../helpers/apply.js';
import { createScratchDir, type ScratchDir } from '../helpers/ci-script.js';
import { example } from '../helpers/demo-stacks.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/**
 * The run step of the GitHub Action (action.yml → action/run.mjs), run as Actions runs it: inputs
 * as INPUT_* variables, outputs to $GITHUB_OUTPUT, `edgeform` found through the action's bin
 * folder (the built dist/), against the emulator. The install step (npm ci + build in the action's
 * checkout) needs the registry and is checked by scripts/check-install.sh.
 */
const RUN = fileURLToPath(new URL('../../action/run.mjs', import.meta.url));

interface StepResult {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
}

let emu: TestEmulator;
let dir: ScratchDir;

beforeEach(async () => {
  emu = await startTestEmulator({ taskDurationMs: 0 });
  dir = createScratchDir();
  copyFileSync(example('quickstart.yaml'), join(dir.path, 'quickstart.yaml'));
});
afterEach(async () => {
  await emu.close();
  dir.remove();
});

function runStep(inputs: Record<string, string>): Promise<StepResult> {
  const outputFile = join(dir.path, 'github-output.txt');
  writeFileSync(outputFile, '');
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', NO_COLOR: '1', GITHUB_OUTPUT: outputFile, ...emulatorEnv(emu) };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUN], { cwd: dir.path, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = readFileSync(outputFile, 'utf8').split('\n').filter(Boolean);
      resolve({ code, stdout, stderr, outputs: Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])) });
    });
  });
}

describe('the GitHub Action run step (action/run.mjs)', () => {
  it('plans, applies the saved plan and finds no drift, with exit codes, summaries and output files', async () => {
    const plan = await runStep({ command: 'plan', stack: 'quickstart.yaml', format: 'markdown', 'plan-file': 'plan.json', 'output-file': 'plan.md' });
    expect(plan.code).toBe(0);
    expect(plan.outputs).toEqual({ 'exit-code': '2', summary: '{"add":0,"change":4,"destroy":3,"read":2}', 'output-file': 'plan.md' });
    expect(plan.stdout).toContain('edgeform plan quickstart.yaml --detailed-exitcode --format markdown --out plan.json');
    expect(readFileSync(join(dir.path, 'plan.md'), 'utf8')).toMatch(/^<!-- edgeform:plan stack=quickstart\.yaml -->\n/);
    expect(writesSeen(emu)).toEqual([]);

    const apply = await runStep({ command: 'apply', stack: 'quickstart.yaml', 'plan-file': 'plan.json', format: 'json' });
    expect(apply.code).toBe(0);
    expect(apply.outputs['exit-code']).toBe('0');
    expect(JSON.parse(apply.outputs.summary!)).toMatchObject({ add: 0, change: 4, destroy: 3, failed: 0, interrupted: false });
    expect(apply.outputs['output-file']).toBe('edgeform-apply.jsonl');
    expect(readFileSync(join(dir.path, 'edgeform-apply.jsonl'), 'utf8').trim().split('\n').at(-1)).toContain('"type":"change_summary"');
    expect(writesSeen(emu)).toHaveLength(8); // 4 updates (the cluster upgrade in 2 steps) and 3 deletes

    const drift = await runStep({ command: 'drift', stack: 'quickstart.yaml', format: 'json' });
    expect(drift.outputs).toMatchObject({ 'exit-code': '0', 'output-file': 'edgeform-drift.json' });
    expect(JSON.parse(drift.outputs.summary!)).toEqual({ resources: 7, checks: 2, drifted: 0, failing_checks: 0, errors: 0 });
  });

  it('passes args on to edgeform', async () => {
    const plan = await runStep({ command: 'plan', stack: 'quickstart.yaml', format: 'json', args: '--target cloud_floating_ip.web_ip\n--parallelism 2' });
    expect(plan.outputs['exit-code']).toBe('2');
    expect(JSON.parse(plan.outputs.summary!)).toMatchObject({ add: 0, change: 1, destroy: 0 });
  });

  it('fails the step with an annotation on exit 1, and still sets exit-code', async () => {
    const result = await runStep({ command: 'plan', stack: 'missing.yaml', format: 'markdown', 'plan-file': 'plan.json' });
    expect(result.code).toBe(1);
    expect(result.outputs).toEqual({ 'exit-code': '1', summary: '', 'output-file': 'edgeform-plan.md' });
    expect(result.stderr).toContain('::error::edgeform plan exited with 1');
  });

  it('hands inputs to edgeform as arguments: a shell command in an input is not run', async () => {
    const result = await runStep({ command: 'validate', stack: 'quickstart.yaml; touch pwned', args: '$(touch pwned2)' });
    expect(result.code).toBe(1);
    expect(existsSync(join(dir.path, 'pwned'))).toBe(false);
    expect(existsSync(join(dir.path, 'pwned2'))).toBe(false);
    const bad = await runStep({ command: 'plan; touch pwned' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('::error::input command is not an edgeform command');
  });
});
