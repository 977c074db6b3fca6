import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { applyCommand } from '../../../src/cli/apply.js';
import { createIO } from '../../../src/cli/io.js';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { waitFor } from '../../helpers/wait.js';

const NOTIFICATIONS = new URL('../../../examples/notifications.yaml', import.meta.url).pathname;
const PROMPT = 'Enter a value: ';

/** A terminal as readline sees it: TTY streams the test types into and reads from. */
function fakeTerminal() {
  const stream = () => Object.assign(new PassThrough(), { isTTY: true });
  const stdin = stream();
  const stdout = stream();
  const stderr = stream();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  return { stdin, stdout, stderr, output: () => out, errors: () => err };
}

/**
 * The confirmation prompt of `edgeform apply` on an interactive terminal, run in-process
 * (a spawned CLI has no TTY) against the emulator.
 */
describe('apply approval on a terminal', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  async function runApply(format: 'text' | 'json' = 'text') {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const term = fakeTerminal();
    const io = createIO({ env: { ...emulatorEnv(emu), NO_COLOR: '1' }, stdin: term.stdin, stdout: term.stdout, stderr: term.stderr });
    const args = { path: NOTIFICATIONS, autoApprove: false, parallelism: 10, maxTasks: 200, target: [] as string[], format, lock: true };
    const exit = applyCommand.run(args, io);
    await waitFor(() => `${term.output()}${term.errors()}`.includes(PROMPT), { what: 'the prompt' });
    return { emu, term, exit };
  }

  it('applies after the answer "yes"', async () => {
    const { emu, term, exit } = await runApply();
    term.stdin.write('yes\n');
    expect(await exit).toBe(0);
    expect(term.output()).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
    expect(writesSeen(emu)).toEqual(['PATCH /iam/reselling/resellers/7/notification_settings/3']);
  });

  it('cancels with exit 1 and sends no write on any other answer', async () => {
    const { emu, term, exit } = await runApply();
    term.stdin.write('y\n');
    expect(await exit).toBe(1);
    expect(term.output()).toContain('Apply cancelled: nothing was changed.');
    expect(writesSeen(emu)).toEqual([]);
  });

  it('cancels with exit 1 and sends no write when the input ends at the prompt', async () => {
    const { emu, term, exit } = await runApply();
    term.stdin.end();
    expect(await exit).toBe(1);
    expect(term.output()).toContain('Apply cancelled: nothing was changed.');
    expect(writesSeen(emu)).toEqual([]);
  });

  it('cancels with exit 130 and sends no write on Ctrl+C at the prompt', async () => {
    const { emu, term, exit } = await runApply();
    term.stdin.write('\x03');
    expect(await exit).toBe(130);
    expect(term.output()).toContain('Apply cancelled: nothing was changed.');
    expect(term.errors()).toBe('');
    expect(writesSeen(emu)).toEqual([]);
  });

  it('with --format json asks on stderr, so stdout stays JSON lines', async () => {
    const { term, exit } = await runApply('json');
    term.stdin.write('yes\n');
    expect(await exit).toBe(0);
    expect(term.errors()).toContain(PROMPT);
    const lines = term.output().trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { type: string }).type).at(-1)).toBe('change_summary');
  });

  it('with --format json reports a cancelled apply on stderr; stdout ends with change_summary naming it', async () => {
    const { term, exit } = await runApply('json');
    term.stdin.write('no\n');
    expect(await exit).toBe(1);
    expect(term.errors()).toContain('Apply cancelled: nothing was changed.');
    const events = term
      .output()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual(['run_error', 'change_summary']);
    expect(events.at(-1)).toMatchObject({ resources: [], run_error: { code: 'EDGEFORM_CANCELLED', message: 'apply was not approved; nothing was changed' } });
  });
});
