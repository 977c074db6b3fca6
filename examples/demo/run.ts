/**
 * `npm run demo`: the main job of edgeform, end to end, against the built-in emulator and
 * with no credentials: plan, apply, drift (in sync), an out-of-band change, drift again, and a
 * floating IP created and then found again by its ownership tags.
 * Every step runs the real CLI as a user would; the script checks each exit code.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { demoFixturesPath, startEmulator } from '../../src/emulator/index.js';

const CLI = fileURLToPath(new URL('../../cmd/edgeform.js', import.meta.url));
const STACK = 'examples/quickstart.yaml';
const CREATE_STACK = 'examples/floating-ips.yaml';

// Platform tasks take 1.5 s here, so the waiting is visible; the test of the demo shortens it.
const taskDurationMs = Number(process.env.EDGEFORM_DEMO_TASK_DURATION ?? 1500);
const emulator = await startEmulator({ port: 0, fixtures: demoFixturesPath, taskDurationMs });
const env = { ...process.env, EDGEFORM_BASE_URL: emulator.url, EDGEFORM_API_KEY: emulator.apiKey };
let failed = false;

/** Bold headings on a terminal, plain text for NO_COLOR or a pipe (as the CLI itself does). */
const bold = (text: string) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${text}\x1b[0m` : text);

/** Runs the CLI as a child process (asynchronously: the emulator lives in this process). */
async function step(title: string, args: string[], expectedCode: number): Promise<void> {
  process.stdout.write(`\n${bold(`━━ ${title}`)}\n$ edgeform ${args.join(' ')}\n\n`);
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: 'inherit' });
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ok = status === expectedCode;
  process.stdout.write(`\n${ok ? '✔' : '✘'} exit code ${String(status)} (expected ${expectedCode})\n`);
  if (!ok) failed = true;
}

try {
  process.stdout.write(`edgeform demo: the platform emulator serves the demo world at ${emulator.url}\n`);
  await step('1. What would change?', ['plan', STACK, '--detailed-exitcode'], 2);
  await step('2. Apply it (waiting on the platform tasks)', ['apply', STACK, '--auto-approve'], 0);
  await step('3. The scheduled drift check: in sync', ['drift', STACK], 0);

  process.stdout.write(`\n${bold('━━ 4. Someone changes a tag by hand, outside edgeform')}\n`);
  const response = await fetch(`${emulator.url}/cloud/v1/floatingips/1/76/726ecfcc-7fd0-4e30-a86e-7892524aa483`, {
    method: 'PATCH',
    headers: { authorization: `APIKey ${emulator.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tags: { env: 'staging', hotfix: 'true' } }),
  });
  process.stdout.write(`PATCH tags {env: staging, hotfix: "true"} → HTTP ${response.status}\n`);

  await step('5. The drift check notices and names the fields', ['drift', STACK], 2);
  await step('6. The plan to put it back', ['plan', STACK, '--detailed-exitcode'], 2);
  await step('7. Create a floating IP edgeform owns (found again by its ownership tags)', ['apply', CREATE_STACK, '--auto-approve'], 0);
  await step('8. Plan it again: found by its tags, nothing to create', ['plan', CREATE_STACK, '--detailed-exitcode'], 0);
} finally {
  await emulator.close();
}

process.stdout.write(failed ? '\nThe demo did not go as expected (see above).\n' : '\nDemo complete: plan, apply and drift all behaved as expected.\n');
process.exitCode = failed ? 1 : 0;
