import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const FIP = '0b5c7a4e-1d2f-4e3a-9b8c-7d6e5f4a3b2c';
/** A key of the platform's shape. */
const KEY = `29841$${'c767b250a9f4e7d1'.repeat(4)}`;
/** A tag key that sets the terminal title (OSC), clears the screen (CSI) and reverses the line (RLO). */
const EVIL_KEY = 'evil\u001b]0;owned\u0007\u001b[2J\u202e';
const EVIL_KEY_SHOWN = 'evil\\u001b]0;owned\\u0007\\u001b[2J\\u202e';
/** A task error echoing the key: an HTML-escaped fragment and the base64 of the Authorization header value. */
const TASK_ERROR = `Token ${KEY.slice(0, 24).replace('$', '&#36;')}… not valid for this region (auth ${Buffer.from(`APIKey ${KEY}`).toString('base64')})\u001b]52;c;b3duZWQ=\u0007`;

// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const windowsOf = (s: string) => Array.from({ length: s.length - 7 }, (_, i) => s.slice(i, i + 8));
/** Every run of 8 characters of the key beyond its public id (29841), and of its header's base64 beyond `APIKey 29841`. */
const secretWindows = [...windowsOf(KEY).filter((_, i) => i + 8 > 5), ...windowsOf(Buffer.from(`APIKey ${KEY}`).toString('base64').slice(16, -4))];

/**
 * Platform answers are untrusted: a tag key carrying terminal control sequences and a task error
 * echoing pieces of the key must reach the user escaped and redacted, in every format of drift
 * and apply, and JSON output must still carry the exact value.
 */
describe('platform text in output', () => {
  let emu: TestEmulator;
  let stack: string;
  let env: Record<string, string>;
  const outputs: CliResult[] = [];

  beforeEach(async () => {
    emu = await startTestEmulator({
      apiKey: KEY,
      taskDurationMs: 0,
      fixtures: {
        defaults: { project_id: 1, region_id: 76 },
        floating_ips: [{ id: FIP, status: 'ACTIVE', tags: { env: 'staging', [EVIL_KEY]: 'x\u009b31m' }, next_task_error: TASK_ERROR }],
      },
    });
    env = emulatorEnv(emu);
    stack = join(
      writeStackFiles({
        'stack.yaml': [
          'version: 1',
          'defaults: { project_id: 1, region_id: 76 }',
          'resources:',
          `  web_ip: { type: cloud_floating_ip, floating_ip_id: ${FIP}, tags: { env: prod } }`,
          '',
        ].join('\n'),
      }),
      'stack.yaml',
    );
  });

  afterEach(async () => {
    for (const o of outputs.splice(0)) {
      for (const text of [o.stdout, o.stderr]) {
        expect(text).not.toMatch(RAW_CONTROL);
        for (const w of secretWindows) expect(text).not.toContain(w);
      }
    }
    await emu.close();
  });

  const run = async (...args: string[]) => {
    const result = await runCliInProcess(args, { env });
    outputs.push(result);
    return result;
  };

  it('drift shows the tag key escaped in text and Markdown, and exactly in JSON', async () => {
    const text = await run('drift', stack);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(`tags.${EVIL_KEY_SHOWN}  stack: (absent)  platform: "x\\u009b31m"`);

    const md = await run('drift', stack, '--format', 'markdown');
    expect(md.code).toBe(2);
    expect(md.stdout).toContain(`| \`cloud_floating_ip.web_ip\` | \`tags.${EVIL_KEY_SHOWN}\` | _absent_ | \`"x\\u009b31m"\` |`);

    const json = await run('drift', stack, '--format', 'json');
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout) as { drifted: { fields: { field: string; platform?: unknown }[] }[] };
    expect(report.drifted[0]!.fields).toContainEqual({ field: `tags.${EVIL_KEY}`, platform: 'x\u009b31m' });
  });

  it('plan Markdown keeps the escaped tag key inside the fenced text plan', async () => {
    const md = await run('plan', stack, '--format', 'markdown');
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/\n```diff\n[^]*\n-\s+"evil\\u001b\]0;owned\\u0007\\u001b\[2J\\u202e" = "x\\u009b31m"[^]*\n```\n/);
  });

  it('apply shows the plan escaped and the failed task redacted, in text and JSON', async () => {
    const text = await run('apply', stack, '--auto-approve');
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`- "${EVIL_KEY_SHOWN}" = "x\\u009b31m"`);
    expect(text.stdout).toMatch(/failed: Token \[REDACTED\]… not valid for this region \(auth \[REDACTED\]\)\\u001b\]52;c;b3duZWQ=\\u0007/);

    emu.reset();
    const json = await run('apply', stack, '--auto-approve', '--format', 'json');
    expect(json.code).toBe(1);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; error?: string });
    const failed = events.find((e) => e.type === 'apply_errored')!;
    expect(failed.error).toMatch(/failed: Token \[REDACTED\]… not valid for this region \(auth \[REDACTED\]\)\u001b\]52;c;b3duZWQ=\u0007$/);
  });
});
