/**
 * `npm run demo`: the main job of edgeform, end to end, against the built-in emulator and
 * with no credentials: plan, the pull-request comment, a reviewed plan refused as stale after
 * an out-of-band change, apply (with its "Still ..." progress while a platform task runs), drift
 * (in sync), another out-of-band change, drift again, and a floating IP created and then found
 * again by its ownership tags, and a FastEdge app reading the address of a floating IP made in
 * the same apply (a reference, known after apply), and a virtual machine made from nothing (network,
 * subnet, security group, SSH key, floating IP, instance) and destroyed again, and a CDN site (origin group, resource, rules,
 * a Let's Encrypt certificate) created, its cache purged for a new release, then a rule dropped and pruned, and two instances behind a load balancer with HTTPS (HTTP redirected to it) made and destroyed. Every step runs the real CLI as a user would; the script checks
 * each exit code.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoFixturesPath, startEmulator } from '../../src/emulator/index.js';

const CLI = fileURLToPath(new URL('../../cmd/edgeform.js', import.meta.url));
const STACK = 'examples/quickstart.yaml';
const CREATE_STACK = 'examples/floating-ips.yaml';
const REFERENCES_STACK = 'examples/references.yaml';
const WEB_STACK = 'examples/web-service.yaml';
const CDN_STACK = 'examples/cdn.yaml';
const LB_STACK = 'examples/load-balanced.yaml';

// Platform tasks last a minute on the emulator's clock, so apply has time to say what it is
// still waiting on; once it has, the demo moves the emulator's clock on instead of waiting.
const TASK_DURATION_MS = 60_000;
const emulator = await startEmulator({ port: 0, fixtures: demoFixturesPath, taskDurationMs: TASK_DURATION_MS });
// The release the CDN site purges for (examples/cdn.yaml: purge.when is ${env:RELEASE}).
// The load-balanced service's TLS key (examples/load-balanced.yaml: private_key is ${env:WEB_TLS_KEY}); a PEM-framed stand-in.
const DEMO_TLS_KEY = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIDemoKeyDemoKeyDemoKeyDemoKeyDemoKeyDemo\n-----END PRIVATE KEY-----\n';
const env: NodeJS.ProcessEnv = { ...process.env, EDGEFORM_BASE_URL: emulator.url, EDGEFORM_API_KEY: emulator.apiKey, RELEASE: '41', WEB_TLS_KEY: DEMO_TLS_KEY };
const work = mkdtempSync(join(tmpdir(), 'edgeform-demo-'));
const reviewed = join(work, 'reviewed.plan.json');
let failed = false;

const colored = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
/** Bold headings on a terminal, plain text for NO_COLOR or a pipe (as the CLI itself does). */
const bold = (text: string) => (colored ? `\x1b[1m${text}\x1b[0m` : text);

/**
 * Runs the CLI as a child process (asynchronously: the emulator lives in this process). With
 * `onOutput`, its stdout passes through this process, which watches it (the child is told to
 * colour it as it would on this terminal).
 */
async function step(title: string, args: string[], expectedCode: number, onOutput?: (text: string) => void): Promise<void> {
  process.stdout.write(`\n${bold(`━━ ${title}`)}\n$ edgeform ${args.join(' ')}\n\n`);
  const argv = onOutput && colored ? [...args, '--color'] : args;
  const child = spawn(process.execPath, [CLI, ...argv], { env, stdio: ['inherit', onOutput ? 'pipe' : 'inherit', 'inherit'] });
  child.stdout?.setEncoding('utf8').on('data', (text: string) => {
    process.stdout.write(text);
    onOutput?.(text);
  });
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ok = status === expectedCode;
  process.stdout.write(`\n${ok ? '✔' : '✘'} exit code ${String(status)} (expected ${expectedCode})\n`);
  if (!ok) failed = true;
}

/** Changes the floating IP's tags directly through the API, as someone at the console would. */
async function changeTagsByHand(tags: Record<string, string>): Promise<void> {
  const response = await fetch(`${emulator.url}/cloud/v1/floatingips/1/76/726ecfcc-7fd0-4e30-a86e-7892524aa483`, {
    method: 'PATCH',
    headers: { authorization: `APIKey ${emulator.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tags }),
  });
  process.stdout.write(`PATCH tags ${JSON.stringify(tags)} → HTTP ${response.status}\n`);
}

/** The watcher of the apply step running now (see finishTasksOnceStillWaiting). */
let onApplyOutput: ((text: string) => void) | undefined;

/** Runs an apply step whose platform tasks finish once it reports "Still ..." (a second's progress interval). */
async function waitingOnTasks(run: () => Promise<void>): Promise<void> {
  const tasks = finishTasksOnceStillWaiting();
  onApplyOutput = tasks.onOutput;
  env.EDGEFORM_PROGRESS_INTERVAL = '1000';
  try {
    await run();
  } finally {
    tasks.stop();
    onApplyOutput = undefined;
    delete env.EDGEFORM_PROGRESS_INTERVAL;
  }
}

/**
 * Apply's output watcher: after its first "Still ..." line, the emulator's clock moves a task's
 * length every tenth of a second, so every task (the k8s upgrade's second step too) finishes.
 */
function finishTasksOnceStillWaiting(): { onOutput: (text: string) => void; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  return {
    onOutput(text) {
      if (timer === undefined && text.includes(': Still ')) timer = setInterval(() => emulator.clock.advance(TASK_DURATION_MS), 100);
    },
    stop: () => clearInterval(timer),
  };
}

try {
  process.stdout.write(`edgeform demo: the platform emulator serves the demo world at ${emulator.url}\n`);
  await step('1. What would change?', ['plan', STACK, '--detailed-exitcode'], 2);
  await step(
    '2. In CI: the pull-request comment (sticky, by its hidden marker, with the monthly cost), and the plan saved for the merge',
    ['plan', STACK, '--format', 'markdown', '--cost', '--out', reviewed],
    0,
  );

  process.stdout.write(`\n${bold('━━ 3. Before the merge, someone changes a tag by hand, outside edgeform')}\n`);
  await changeTagsByHand({ env: 'staging', owner: 'bob' });
  await step('4. Applying the reviewed plan is refused: it is stale', ['apply', reviewed], 1);

  await waitingOnTasks(() => step('5. Plan again and apply (waiting on the platform tasks)', ['apply', STACK, '--auto-approve'], 0, onApplyOutput));
  await step('6. The scheduled drift check: in sync', ['drift', STACK], 0);

  process.stdout.write(`\n${bold('━━ 7. Someone changes a tag by hand again')}\n`);
  await changeTagsByHand({ env: 'staging', hotfix: 'true' });
  await step('8. The drift check notices and names the fields', ['drift', STACK], 2);
  await step('9. The plan to put it back', ['plan', STACK, '--detailed-exitcode'], 2);
  await waitingOnTasks(() => step('10. Create a floating IP edgeform owns (found again by its ownership tags)', ['apply', CREATE_STACK, '--auto-approve'], 0, onApplyOutput));
  await step('11. Plan it again: found by its tags, nothing to create', ['plan', CREATE_STACK, '--detailed-exitcode'], 0);
  await step('12. An app whose env reads the address of a floating IP made in the same apply: known after apply', ['plan', REFERENCES_STACK, '--detailed-exitcode'], 2);
  await waitingOnTasks(() =>
    step('13. Apply: the floating IP first (its task), then the app with the real address', ['apply', REFERENCES_STACK, '--auto-approve'], 0, onApplyOutput),
  );
  await step('14. Plan it again: the address is known and in place, nothing to do', ['plan', REFERENCES_STACK, '--detailed-exitcode'], 0);
  await step('15. A virtual machine from nothing, set up by its cloud-init file: 7 to add, ids and addresses known after apply', ['plan', WEB_STACK, '--detailed-exitcode'], 2);
  await waitingOnTasks(() =>
    step('16. Apply: network, subnet, security group, SSH key and floating IP, then the instance, each task waited on', ['apply', WEB_STACK, '--auto-approve'], 0, onApplyOutput),
  );
  await step('17. Plan it again: found by its ownership tags, nothing to do', ['plan', WEB_STACK, '--detailed-exitcode'], 0);
  // The same stack with `ensure: absent` on every block, next to its key file.
  const gone = join(work, 'web-service.yaml');
  writeFileSync(gone, readFileSync(WEB_STACK, 'utf8').replace(/^( {2}[a-z]+:\n {4}type: .*)$/gm, '$1\n    ensure: absent'));
  copyFileSync('examples/web-service.pub', join(work, 'web-service.pub'));
  copyFileSync('examples/web-service.user-data', join(work, 'web-service.user-data'));
  await waitingOnTasks(() => step('18. ensure: absent on every block: destroyed in reverse order, the instance first', ['apply', gone, '--auto-approve'], 0, onApplyOutput));
  await step("19. A CDN site: origin group, resource with a dozen options, two rules, a Let's Encrypt certificate", ['plan', CDN_STACK, '--detailed-exitcode'], 2);
  await waitingOnTasks(() =>
    step('20. Apply: the group, the resource, its rules; the certificate issued and waited for', ['apply', CDN_STACK, '--auto-approve'], 0, onApplyOutput),
  );
  await step('21. Plan it again: found by name and cname, nothing to do (release 41 is recorded: no purge due)', ['plan', CDN_STACK, '--detailed-exitcode'], 0);
  env.RELEASE = '42';
  await step('22. A new release (RELEASE=42): the plan shows the purge it is due', ['plan', CDN_STACK, '--detailed-exitcode'], 2);
  await step('23. Apply: the purge is sent after the changes, and release 42 recorded on the resource', ['apply', CDN_STACK, '--auto-approve'], 0);
  await step('24. Plan it again: release 42 was purged for, nothing to do', ['plan', CDN_STACK, '--detailed-exitcode'], 0);
  // The same stack without its "api" rule and with prune: true: the rule is no block's any more.
  const pruning = join(work, 'cdn.yaml');
  writeFileSync(
    pruning,
    readFileSync(CDN_STACK, 'utf8')
      .replace(/^name: (.*)$/m, 'name: $1\nprune: true')
      .replace(/^ {2}api:\n(?: {4}.*\n)+/m, ''),
  );
  await step('25. The "api" rule is dropped from the stack, with prune: true: destroyed (deactivated first)', ['apply', pruning, '--auto-approve'], 0);
  await step(
    "26. Two instances behind a load balancer with HTTPS, HTTP redirected to it: 12 to add, the certificate's key only from the environment",
    ['plan', LB_STACK, '--detailed-exitcode'],
    2,
  );
  await waitingOnTasks(() =>
    step(
      "27. Apply: the chain, then the balancer; its listeners, pool and L7 policy one at a time on the balancer's lock",
      ['apply', LB_STACK, '--auto-approve'],
      0,
      onApplyOutput,
    ),
  );
  await step('28. Plan it again: balancer by its ownership tags, listeners, pool and policy by name, nothing to do', ['plan', LB_STACK, '--detailed-exitcode'], 0);
  const lbGone = join(work, 'load-balanced.yaml');
  writeFileSync(lbGone, readFileSync(LB_STACK, 'utf8').replace(/^( {2}[a-z_0-9]+:\n {4}type: .*)$/gm, '$1\n    ensure: absent'));
  copyFileSync('examples/load-balanced.crt', join(work, 'load-balanced.crt'));
  copyFileSync('examples/load-balanced.chain.crt', join(work, 'load-balanced.chain.crt'));
  await waitingOnTasks(() =>
    step('29. ensure: absent on every block: the policy and the pool, the listeners, then the balancer', ['apply', lbGone, '--auto-approve'], 0, onApplyOutput),
  );
} finally {
  await emulator.close();
  rmSync(work, { recursive: true, force: true });
}

process.stdout.write(failed ? '\nThe demo did not go as expected (see above).\n' : '\nDemo complete: plan, apply and drift all behaved as expected.\n');
process.exitCode = failed ? 1 : 0;
