import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportMarker } from '../../../src/render/report-merge.js';
import { emulatorEnv } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { closedPort } from '../../helpers/loopback-server.js';
import { IN_SYNC } from '../../helpers/demo-stacks.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * `edgeform report merge`: the results matrix jobs write, one stack each, made by the real
 * commands against the emulator, then merged. The fleet: `ok` in sync, `drifted` (the instance
 * was resized behind it), `broken` (invalid), `down` (its platform unreachable), and `lost`,
 * listed by `stacks` but without any result (its job died).
 */
let emu: TestEmulator;
let env: Record<string, string>;
let dir: string;
let results: string;

const DRIFTED = `version: 1
name: drifted
defaults: { project_id: 1, region_id: 76 }
resources:
  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-2-4 }
  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: prod, team: edge } }
`;

async function run(args: string[], extraEnv: Record<string, string> = {}) {
  return runCliInProcess(args, { env: { ...env, ...extraEnv }, cwd: dir });
}

/** Runs `edgeform COMMAND STACK --format json` in the fleet's directory and saves its output as a result file. */
async function result(command: 'drift' | 'plan', stack: string, extraEnv: Record<string, string> = {}): Promise<number | null> {
  const out = await run([command, stack, '--format', 'json'], extraEnv);
  writeFileSync(join(results, `${command}-${stack.replace(/\//g, '_')}.json`), out.stdout);
  return out.code;
}

beforeAll(async () => {
  emu = await startTestEmulator({ taskDurationMs: 0 });
  env = emulatorEnv(emu);
  emu.state.instances.get(DEMO.instance)!.flavor_id = 'g2-standard-8-16';
  dir = writeStackFiles({
    'stacks/ok.yaml': IN_SYNC.replace(/ *web_vm: .*\n/, ''),
    'stacks/drifted.yaml': DRIFTED,
    'stacks/broken.yaml': 'version: 1\nresources:\n  x: { type: cloud_floating_ip, project_id: 1, region_id: 76, bogus: 1 }\n',
    'stacks/down.yaml':
      'version: 1\nname: down\nresources:\n  ip: { type: cloud_floating_ip, project_id: 1, region_id: 76, floating_ip_id: 726ecfcc-7fd0-4e30-a86e-7892524aa483 }\n',
    'stacks/lost.yaml': 'version: 1\nresources:\n  app: { type: fastedge_app, app_id: 1300 }\n',
  });
  results = join(dir, 'results');
  mkdirSync(results);
  const listing = await run(['stacks', 'stacks', '--format', 'json']);
  writeFileSync(join(results, 'stacks.json'), listing.stdout);
  expect(await result('drift', 'stacks/ok.yaml')).toBe(0);
  expect(await result('drift', 'stacks/drifted.yaml')).toBe(2);
  expect(await result('drift', 'stacks/broken.yaml')).toBe(1);
  expect(await result('drift', 'stacks/down.yaml', { EDGEFORM_BASE_URL: await closedPort() })).toBe(1);
});
afterAll(() => emu.close());

const merge = (args: string[]) => run(['report', 'merge', ...args]);

describe('edgeform report merge', () => {
  it('merges the results into one document: errors first, then drifted, then in sync; exit 1 when any stack errored', async () => {
    const merged = await merge(['results', '--format', 'json']);
    expect(merged.code).toBe(1);
    const doc = JSON.parse(merged.stdout);
    expect(doc).toMatchObject({ format_version: '1.0', name: 'fleet', command: 'drift', files: 5, exit_code: 1, exit_meaning: 'error: 3 stacks could not be compared' });
    expect(doc.summary).toEqual({ stacks: 5, errors: 3, differ: 1, same: 1 });
    expect(doc.stacks.map((s: { path: string; status: string }) => [s.path, s.status])).toEqual([
      ['stacks/broken.yaml', 'error'],
      ['stacks/down.yaml', 'error'],
      ['stacks/lost.yaml', 'error'],
      ['stacks/drifted.yaml', 'differs'],
      ['stacks/ok.yaml', 'same'],
    ]);
    const byPath = new Map(doc.stacks.map((s: { path: string }) => [s.path, s]));
    expect(byPath.get('stacks/broken.yaml')).toMatchObject({ errors: [{ code: 'unknown-field', where: 'stacks/broken.yaml:3:63' }] });
    // The failure document names its stack (path), so it joins the listing's entry.
    expect(byPath.get('stacks/down.yaml')).toMatchObject({ name: 'down', commands: ['drift'], errors: [{ code: 'EDGEFORM_PLATFORM_UNAVAILABLE' }] });
    expect(byPath.get('stacks/down.yaml')).toMatchObject({ sources: ['results/drift-stacks_down.yaml.json', 'results/stacks.json'] });
    expect(byPath.get('stacks/lost.yaml')).toMatchObject({ commands: [], errors: [{ code: 'missing-result' }], sources: ['results/stacks.json'] });
    expect(byPath.get('stacks/drifted.yaml')).toMatchObject({
      name: 'drifted',
      differences: [
        { address: 'cloud_instance.web_vm', action: 'changed', fields: [{ field: 'flavor_id', stack: 'g2-standard-2-4', platform: 'g2-standard-8-16' }] },
        expect.anything(),
      ],
    });
  });

  it('writes one Markdown body: the marker, the verdict, errors in the open, drifted stacks folded, the counts', async () => {
    const merged = await merge(['results']);
    expect(merged.code).toBe(1);
    const md = merged.stdout;
    expect(md.startsWith(`${reportMarker('fleet')}\n### edgeform drift: 5 stacks\n\n**3 stacks could not be compared**, **1 drifted**, 1 in sync.\n`)).toBe(true);
    const order = [
      '#### Could not be compared (3)',
      '- `stacks/broken.yaml`: `unknown-field`',
      '- `stacks/down.yaml` (`down`): `EDGEFORM_PLATFORM_UNAVAILABLE`',
      '#### Drifted (1)',
      '#### In sync (1)',
      '| stacks |',
    ];
    const at = order.map((text) => md.indexOf(text));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(md).toContain('<details><summary><code>stacks/drifted.yaml</code> (drifted): 2 resources differ</summary>\n\n| resource | | field | stack | platform |');
    expect(md).toContain('| `cloud_instance.web_vm` | changed | `flavor_id` | `"g2-standard-2-4"` | `"g2-standard-8-16"` |');
    expect(md).toContain('| 5 | 3 | 1 | 1 |');
    expect(md).toContain('_Merged from 5 result files._');
  });

  it('exits 2 when a stack drifted and none errored, 0 when all are in sync', async () => {
    const drifted = await merge(['results/drift-stacks_ok.yaml.json', 'results/drift-stacks_drifted.yaml.json', '--format', 'json']);
    expect(drifted.code).toBe(2);
    expect(JSON.parse(drifted.stdout)).toMatchObject({ exit_code: 2, exit_meaning: 'drift found', summary: { stacks: 2, errors: 0, differ: 1, same: 1 } });
    const inSync = await merge(['results/drift-stacks_ok.yaml.json']);
    expect(inSync.code).toBe(0);
    expect(inSync.stdout).toContain('### edgeform drift: 1 stack\n\n1 in sync.\n');
  });

  it('merges plans too: a plan with changes differs, and --name names the fleet in the marker and heading', async () => {
    const plans = join(dir, 'plans');
    mkdirSync(plans, { recursive: true });
    for (const stack of ['stacks/ok.yaml', 'stacks/drifted.yaml']) {
      const out = await run(['plan', stack, '--format', 'json']);
      writeFileSync(join(plans, `${stack.replace(/\//g, '_')}.json`), out.stdout);
    }
    const merged = await merge(['plans', '--name', 'prod-eu']);
    expect(merged.code).toBe(2);
    expect(merged.stdout).toContain(`${reportMarker('prod-eu')}\n### edgeform plan: 2 stacks of \`prod-eu\`\n\n**1 with changes**, 1 no changes.`);
    expect(merged.stdout).toContain('<code>stacks/drifted.yaml</code> (drifted): 2 resources to change</summary>');
    expect(merged.stdout).toContain('| `cloud_instance.web_vm` | update | `flavor_id` | `"g2-standard-2-4"` | `"g2-standard-8-16"` |');
  });

  it('reads one document per line (a sweep of many stacks in one file)', async () => {
    const lines = ['ok', 'drifted'].map((s) => JSON.stringify(JSON.parse(readFileSync(join(results, `drift-stacks_${s}.yaml.json`), 'utf8'))));
    writeFileSync(join(dir, 'sweep.jsonl'), `${lines.join('\n')}\n`);
    const merged = await merge(['sweep.jsonl', '--format', 'json']);
    expect(JSON.parse(merged.stdout).stacks.map((s: { path: string }) => s.path)).toEqual(['stacks/drifted.yaml', 'stacks/ok.yaml']);
  });

  it('reports a file that is missing, empty, not JSON or no edgeform document as an error under its name, never a crash', async () => {
    writeFileSync(join(dir, 'empty.json'), '');
    writeFileSync(join(dir, 'garbage.json'), '{"in_sync": "yes"}\n[1, 2');
    writeFileSync(join(dir, 'other.json'), '{"hello": "world"}');
    const merged = await merge(['empty.json', 'garbage.json', 'other.json', 'missing.json', '--format', 'json']);
    expect(merged.code).toBe(1);
    expect(merged.stderr).toBe('');
    const errors = JSON.parse(merged.stdout).stacks.map((s: { path: string; errors: Array<{ summary: string }> }) => [s.path, s.errors[0]!.summary]);
    expect(errors).toEqual([
      ['empty.json', 'empty.json is empty: its job wrote no result'],
      ['garbage.json', expect.stringMatching(/^garbage\.json is not JSON: /)],
      ['missing.json', 'cannot read missing.json: no such file'],
      ['other.json', 'other.json is not a document edgeform wrote (plan, drift, validate or stacks --format json)'],
    ]);
  });

  it('keeps what a result file holds from writing Markdown, HTML or mentions into the body', async () => {
    const hostile = JSON.parse(readFileSync(join(results, 'drift-stacks_drifted.yaml.json'), 'utf8'));
    hostile.stack.sources = ['stacks/<img src=x onerror=alert(1)>`@team.yaml'];
    hostile.stack.name = '</summary><script>';
    hostile.drifted[0].fields[0].platform = '| `x` [link](http://evil) @everyone';
    writeFileSync(join(dir, 'hostile.json'), JSON.stringify(hostile));
    const merged = await merge(['hostile.json']);
    expect(merged.stdout).not.toMatch(/<img|<script|<\/summary><script/);
    expect(merged.stdout).toContain('<code>stacks/&lt;img src=x onerror=alert(1)&gt;`@team.yaml</code> (&lt;/summary&gt;&lt;script&gt;)');
    expect(merged.stdout).toContain('| ``"\\| `x` [link](http://evil) @everyone"`` |');
  });

  it('stays within a GitHub comment: beyond 65,000 characters the details give way to one line per stack and a note', async () => {
    const big = join(dir, 'big');
    mkdirSync(big, { recursive: true });
    const drifted = JSON.parse(readFileSync(join(results, 'drift-stacks_drifted.yaml.json'), 'utf8'));
    for (let i = 0; i < 400; i++) {
      const doc = structuredClone(drifted);
      doc.stack.sources = [`stacks/service-${String(i).padStart(3, '0')}.yaml`];
      doc.drifted[0].fields[0].platform = 'x'.repeat(150);
      writeFileSync(join(big, `${i}.json`), JSON.stringify(doc));
    }
    const merged = await merge(['big']);
    expect(merged.code).toBe(2);
    expect(merged.stdout.length).toBeLessThanOrEqual(65_000);
    expect(merged.stdout).toContain('is too long for one comment');
    expect(merged.stdout).toContain('- `stacks/service-000.yaml` (`drifted`): 2 resources differ');
    expect(merged.stdout).toContain('| 400 | 0 | 400 | 0 |');
    expect(merged.stdout).not.toContain('<details>');
    // --limit 0: the full report, every detail (for the job's artifacts).
    const full = await merge(['big', '--limit', '0']);
    expect(full.stdout.length).toBeGreaterThan(65_000);
    expect(full.stdout).not.toContain('too long');
    expect(full.stdout.match(/<details><summary>/g)).toHaveLength(400);
    // Thousands of stacks: the list itself is cut, with a count of what is left out.
    const huge = join(dir, 'huge');
    mkdirSync(huge, { recursive: true });
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ ...drifted, stack: { ...drifted.stack, sources: [`stacks/s-${i}.yaml`] } }));
    writeFileSync(join(huge, 'sweep.jsonl'), lines.join('\n'));
    const cut = await merge(['huge']);
    expect(cut.stdout.length).toBeLessThanOrEqual(65_000);
    expect(cut.stdout).toMatch(/- … and \d+ more \(in the full report\)/);
    expect(cut.stdout).toContain('| 3000 | 0 | 3000 | 0 |');
  });

  it('completes its action and its flags', async () => {
    const action = await runCliInProcess(['--get-yargs-completions', 'edgeform', 'report', '']);
    expect(action.stdout.split('\n')).toEqual(expect.arrayContaining(['merge', '--format', '--name', '--limit']));
  });

  it('refuses no files at all, and a --name that could not be a marker', async () => {
    mkdirSync(join(dir, 'nothing'), { recursive: true });
    const none = await merge(['nothing']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('report merge needs result files');
    const name = await merge(['results', '--name', 'a -->']);
    expect(name.code).toBe(1);
    expect(name.stderr).toContain('--name takes');
  });
});
