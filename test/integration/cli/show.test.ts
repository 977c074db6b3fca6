import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAN_FORMAT_VERSION } from '../../../src/plan/types.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

let emu: TestEmulator;
useTestEmulator((started) => (emu = started));

const tempFile = (name: string) => join(mkdtempSync(join(tmpdir(), 'edgeform-show-')), name);
const platform = () => ({ EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey });
/** No key and no platform: show must need neither. */
const offline = { EDGEFORM_BASE_URL: undefined, EDGEFORM_API_KEY: undefined };

/** Plans `stack` against the emulator with --out and --format json: the saved file and what was printed. */
async function savedPlan(stack: string, extra: string[] = []): Promise<{ file: string; printed: string }> {
  const file = tempFile('plan.json');
  const result = await runCliInProcess(['plan', stack, '--out', file, '--format', 'json', ...extra], { env: platform() });
  expect(result.code).toBe(0);
  return { file, printed: result.stdout };
}

describe('the plan document: plan --format json and the plan file share one shape and version', () => {
  it('prints with --format json exactly the document --out writes', async () => {
    const { file, printed } = await savedPlan('examples/quickstart.yaml');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(JSON.parse(printed)).toEqual(saved);
    expect(saved.format_version).toBe(PLAN_FORMAT_VERSION);
  });

  it('has the same keys at every level in both, for a plan with updates, deletes and checks', async () => {
    const { file, printed } = await savedPlan('examples/quickstart.yaml');
    const shape = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(shape) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)])) : typeof v;
    expect(shape(JSON.parse(printed))).toEqual(shape(JSON.parse(readFileSync(file, 'utf8'))));
  });

  it('applies the output of plan --format json as a plan file (it is one)', async () => {
    const { printed } = await savedPlan('examples/cleanup.yaml');
    const file = tempFile('printed.json');
    writeFileSync(file, printed);
    const result = await runCliInProcess(['apply', file], { env: platform() });
    expect(result.stderr).not.toContain('corrupt');
    expect(result.code).toBe(0);
  });
});

describe('edgeform show PLANFILE', () => {
  it('shows a saved plan as plan showed it, in text, without an API key or any request', async () => {
    const { file } = await savedPlan('examples/quickstart.yaml');
    const planned = await runCliInProcess(['plan', 'examples/quickstart.yaml'], { env: platform() });
    emu.requests.length = 0;
    const shown = await runCliInProcess(['show', file], { env: offline });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(planned.stdout);
    expect(shown.stdout).toContain('Plan: 0 to add, 4 to change, 3 to destroy.');
    expect(emu.requests).toEqual([]);
  });

  it('shows it as the plan document with --format json', async () => {
    const { file } = await savedPlan('examples/quickstart.yaml');
    const shown = await runCliInProcess(['show', file, '--format', 'json'], { env: offline });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(JSON.parse(readFileSync(file, 'utf8')));
  });

  it('shows it as the pull-request comment with --format markdown, under the stack marker', async () => {
    const { file } = await savedPlan('examples/cleanup.yaml');
    const shown = await runCliInProcess(['show', file, '--format', 'markdown'], { env: { ...offline, GITHUB_SHA: 'c'.repeat(40) } });
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n')[0]).toBe('<!-- edgeform:plan stack=examples/cleanup.yaml -->');
    expect(shown.stdout).toContain('_Planned commit `cccccccccccc` at');
    expect(shown.stdout).toContain('```diff\n');
  });

  it('refuses a corrupt or edited plan file as apply does, and a missing one, with exit 1', async () => {
    const { file } = await savedPlan('examples/quickstart.yaml');
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    doc.resource_changes[0].action = 'explode';
    writeFileSync(file, JSON.stringify(doc));
    const corrupt = await runCliInProcess(['show', file], { env: offline });
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toContain(`${file} is a corrupt plan file: resource_changes.0.action`);
    const missing = await runCliInProcess(['show', tempFile('none.json')], { env: offline });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read the plan file');
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });

  it('says a stack is a stack, not a plan file, and points to plan (a stack file and a directory stack)', async () => {
    const file = await runCliInProcess(['show', 'examples/cdn.yaml'], { env: offline });
    expect(file.code).toBe(1);
    expect(file.stdout).toBe('');
    expect(file.stderr).toBe(
      'Error: examples/cdn.yaml is a stack, not a plan file: `edgeform plan examples/cdn.yaml` shows what it would change, and `edgeform plan examples/cdn.yaml --out plan.json` saves a plan that `edgeform show plan.json` shows.\n',
    );
    const dir = await runCliInProcess(['show', 'examples/multi-file'], { env: offline });
    expect(dir.code).toBe(1);
    expect(dir.stderr).toMatch(/^Error: examples\/multi-file is a directory, not a plan file: `edgeform plan examples\/multi-file` shows what it would change/);
  });

  it('says what is missing when no plan file is given', async () => {
    const result = await runCliInProcess(['show'], { env: offline });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: missing PLANFILE: give a plan file written by edgeform plan --out');
  });
});
