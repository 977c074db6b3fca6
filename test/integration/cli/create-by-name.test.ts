import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * The whole life of the kinds found by a natural key (fastedge_app and streaming_player by
 * `name`), through the CLI in-process against the emulator: create, a plan with no changes,
 * an update, ensure: absent; a create whose answer was lost; names two players share; blocks
 * with neither id nor name.
 */

let emu: TestEmulator;
let env: Record<string, string>;
useTestEmulator((started) => ([emu, env] = [started, emulatorEnv(started)]), { taskDurationMs: 0 });

const run = async (args: string[]): Promise<CliResult> => {
  const result = await runCliInProcess(args, { env });
  expect(`${result.stdout}${result.stderr}`).not.toContain(emu.apiKey);
  return result;
};
const stackFile = (yaml: string): string => join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');
const posts = (route: string) => emu.requests.filter((r) => r.method === 'POST' && r.route === route).length;

interface Kind {
  type: 'fastedge_app' | 'streaming_player';
  /** The block's settings at creation, at update, the line the update changes in the plan. */
  created: string;
  updated: string;
  planLine: string;
  postRoute: string;
  /** The live objects of the kind with a name. */
  named: (name: string) => Array<Record<string, unknown>>;
}

const kinds: Kind[] = [
  {
    type: 'fastedge_app',
    created: 'binary: 7\n    env: { MODE: prod }\n    comment: first',
    updated: 'binary: 7\n    env: { MODE: prod }\n    comment: second',
    planLine: '~ comment: "first" -> "second"',
    postRoute: '/fastedge/v1/apps',
    named: (name) => [...emu.state.fastedgeApps.values()].filter((a) => a.name === name) as unknown as Array<Record<string, unknown>>,
  },
  {
    type: 'streaming_player',
    created: 'autoplay: true\n    bg_color: "#112233"',
    updated: 'autoplay: false\n    bg_color: "#112233"',
    planLine: '~ autoplay: true -> false',
    postRoute: '/streaming/players',
    named: (name) => [...emu.state.players.values()].filter((p) => p.name === name),
  },
];

describe.each(kinds)('$type found by name', ({ type, created, updated, planLine, postRoute, named }) => {
  const block = (settings: string, ensure = 'present') => `version: 1\nresources:\n  it:\n    type: ${type}\n    name: made-by-edgeform\n    ${settings}\n    ensure: ${ensure}\n`;

  it('lives its whole life: create, no changes, update, destroy', async () => {
    const file = stackFile(block(created));
    const planned = await run(['plan', file]);
    expect(planned.stdout).toContain(`# ${type}.it will be created (to be found by name "made-by-edgeform")`);
    expect(planned.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');

    const applied = await run(['apply', file, '--auto-approve']);
    expect(applied.code).toBe(0);
    const [made] = named('made-by-edgeform');
    expect(applied.stdout).toContain(`${type}.it: Created after 0s [id ${made!.id}, found by name "made-by-edgeform"]`);
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');

    const again = await run(['plan', file, '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);

    writeFileSync(file, block(updated));
    const change = await run(['plan', file, '--detailed-exitcode']);
    expect(change.code).toBe(2);
    expect(change.stdout).toContain(`# ${type}.it will be updated in-place (found by name "made-by-edgeform")`);
    expect(change.stdout).toContain(planLine);
    expect((await run(['apply', file, '--auto-approve'])).stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
    expect((await run(['plan', file, '--detailed-exitcode'])).code).toBe(0);

    writeFileSync(file, block(updated, 'absent'));
    const destroyed = await run(['apply', file, '--auto-approve']);
    expect(destroyed.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 1 destroyed.');
    expect(named('made-by-edgeform')).toEqual([]);
    const gone = await run(['plan', file, '--detailed-exitcode']);
    expect(gone.stdout).toContain('No changes.');
    expect(gone.code).toBe(0);
    expect(posts(postRoute)).toBe(1);
  });

  it('applies a saved plan that creates it, and a second apply of the same stack creates nothing more', async () => {
    const file = stackFile(block(created));
    const saved = join(writeStackFiles({}), 'plan.json');
    expect((await run(['plan', file, '--out', saved])).code).toBe(0);
    const applied = await run(['apply', saved, '--stack', file]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect((await run(['apply', file, '--auto-approve'])).stdout).toContain('No changes.');
    expect(posts(postRoute)).toBe(1);
    expect(named('made-by-edgeform')).toHaveLength(1);
  });

  it('finishes a create whose answer was lost after the platform made it, without a second POST', async () => {
    emu.faults.dropNext({ method: 'POST', path: postRoute, when: 'after' });
    const file = stackFile(block(created));
    const applied = await run(['apply', file, '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect(posts(postRoute)).toBe(1);
    expect(named('made-by-edgeform')).toHaveLength(1);
    const again = await run(['plan', file, '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });
});

describe('identity errors', () => {
  it('refuses to plan a player whose name two players have, naming both ids at the block', async () => {
    for (const id of [70, 71]) emu.state.players.set(id, { id, name: 'twin', client_id: 1 });
    const result = await run(['plan', stackFile('version: 1\nresources:\n  twin:\n    type: streaming_player\n    name: twin\n    autoplay: true\n')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'stack.yaml:3:3: error: reading streaming_player.twin failed: 2 streaming_player resources match name "twin": ids 70, 71; set player_id in the block to pick one (or remove the others)',
    );
    expect(posts('/streaming/players')).toBe(0);
  });

  it.each([
    ['fastedge_app', 'app_id'],
    ['streaming_player', 'player_id'],
  ])('refuses a %s block with neither %s nor name, at the block (validate)', async (type, idField) => {
    const result = await run(['validate', stackFile(`version: 1\nresources:\n  nameless:\n    type: ${type}\n    ensure: absent\n`)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`stack.yaml:3:3: error: name must be set when ${idField} is not: edgeform finds the`);
  });

  it('refuses a name the platform would refuse, at the value (validate)', async () => {
    const result = await run(['validate', stackFile('version: 1\nresources:\n  app:\n    type: fastedge_app\n    name: My_App\n    binary: 1\n')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('stack.yaml:5:11: error:');
    expect(result.stderr).toContain('an app name is 2 or more lowercase letters, digits and dashes');
  });

  it('refuses an env variable named like a credential, never printing its value (a stack holds no secrets)', async () => {
    const result = await run([
      'validate',
      stackFile('version: 1\nresources:\n  app:\n    type: fastedge_app\n    name: my-app\n    binary: 1\n    env: { API_TOKEN: s3cr3t-value, MODE: prod }\n'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('stack.yaml:7:12: error: "API_TOKEN" looks like a credential; a stack never holds secrets');
    expect(result.stderr).not.toContain('s3cr3t-value');
  });

  it('refuses to plan creating an app without binary, pointing at the block', async () => {
    const result = await run(['plan', stackFile('version: 1\nresources:\n  app:\n    type: fastedge_app\n    name: fresh-app\n')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('stack.yaml:5:11: error: fastedge_app.app: creating a fastedge_app needs binary');
    expect(posts('/fastedge/v1/apps')).toBe(0);
  });
});
