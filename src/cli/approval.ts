import { createInterface } from 'node:readline/promises';
import type { CliIO } from './io.js';

/**
 * Asks for approval (apply's question, or `what` another command will do) on the terminal (on stderr with --format json, so stdout stays JSON lines).
 * Only "yes" approves and the end of the input declines; Ctrl+C at the prompt (readline's
 * SIGINT in raw mode) or a SIGINT/SIGTERM to the process interrupts.
 */
export async function askApproval(
  io: CliIO,
  output: CliIO['stdout'],
  signal: AbortSignal,
  what = 'edgeform will perform the actions described above.',
): Promise<'approved' | 'declined' | 'interrupted'> {
  const rl = createInterface({ input: io.stdin, output });
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: 'approved' | 'declined' | 'interrupted') => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(answer);
      rl.close();
    };
    const onAbort = () => settle('interrupted');
    if (signal.aborted) return settle('interrupted');
    signal.addEventListener('abort', onAbort, { once: true });
    rl.on('SIGINT', () => {
      output.write('\n');
      settle('interrupted');
    });
    rl.on('close', () => settle('declined'));
    rl.question(`\nDo you want to perform these actions?\n  ${what}\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: `).then(
      (answer) => settle(answer.trim() === 'yes' ? 'approved' : 'declined'),
      () => settle('declined'),
    );
  });
}
