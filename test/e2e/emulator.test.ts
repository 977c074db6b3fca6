import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NUMERIC_OPTION_NAMES, emulatorFlag } from '../../src/emulator/index.js';
import { CLI_PATH } from '../helpers/cli.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const FIP = '726ecfcc-7fd0-4e30-a86e-7892524aa483';

describe('edgeform emulator (built CLI)', () => {
  it('prints the base URL and key, serves the demo world with that key, and exits 0 on SIGTERM', async () => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), NO_COLOR: '1' };
    const child = spawn(process.execPath, [CLI_PATH, 'emulator', '--port', '0', '--fixtures', 'examples/emulator/fixtures.yaml'], {
      cwd: REPO,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const banner = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          stdout += d;
          if (/EDGEFORM_API_KEY=.*\n/.test(stdout)) resolve(stdout);
        });
        child.on('close', () => reject(new Error(`emulator exited early:\n${stdout}\n${stderr}`)));
      });
      const url = /export EDGEFORM_BASE_URL=(\S+)/.exec(banner)?.[1];
      const key = /export EDGEFORM_API_KEY='([^']+)'/.exec(banner)?.[1];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:(?!0\b)\d+$/);
      expect(key).toContain('$');
      const res = await fetch(`${url}/cloud/v1/floatingips/1/76/${FIP}`, { headers: { Authorization: `APIKey ${key}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { floating_ip_address: string }).floating_ip_address).toBe('203.0.113.10');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('with faults on, names the seed in the banner; --seed repeats the same faults', async () => {
    const args = [
      'emulator',
      '--port',
      '0',
      '--fixtures',
      'examples/emulator/fixtures.yaml',
      '--fail-rate',
      '0.5',
      '--drop-after-rate',
      '0.2',
      '--task-fail-rate',
      '0.1',
      '--seed',
      '4242',
    ];
    const statuses: number[][] = [];
    for (let run = 0; run < 2; run++) {
      const child = spawn(process.execPath, [CLI_PATH, ...args], {
        cwd: REPO,
        env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      try {
        let stdout = '';
        const banner = await new Promise<string>((resolve, reject) => {
          child.stdout.setEncoding('utf8').on('data', (d: string) => {
            stdout += d;
            if (/EDGEFORM_API_KEY=.*\n/.test(stdout)) resolve(stdout);
          });
          child.on('close', () => reject(new Error(`emulator exited early:\n${stdout}`)));
        });
        expect(banner).toContain('Injecting faults with seed 4242 (--seed 4242 repeats them).');
        const url = /export EDGEFORM_BASE_URL=(\S+)/.exec(banner)?.[1];
        const key = /export EDGEFORM_API_KEY='([^']+)'/.exec(banner)?.[1];
        const seen: number[] = [];
        for (let i = 0; i < 12; i++) {
          seen.push(
            await fetch(`${url}/cloud/v1/floatingips/1/76/${FIP}`, { headers: { Authorization: `APIKey ${key}` } }).then(
              (r) => r.status,
              () => 0,
            ),
          );
        }
        statuses.push(seen);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    }
    expect(statuses[1]).toEqual(statuses[0]);
    expect(new Set(statuses[0])).toEqual(new Set([200, 503, 0]));
  });

  it('rejects a seed that is not a whole number from 0 to 2^32 - 1', async () => {
    const child = spawn(process.execPath, [CLI_PATH, 'emulator', '--seed', '-3'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('--seed must be a whole number from 0 to 4294967295');
  });

  it('rejects a fail rate above 1 with a clear message and exit 1', async () => {
    const child = spawn(process.execPath, [CLI_PATH, 'emulator', '--fail-rate', '1.5'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('--fail-rate must be a probability between 0 and 1');
  });

  it('takes every numeric emulator option as a flag and checks it against the same range', async () => {
    for (const name of NUMERIC_OPTION_NAMES) {
      const flag = emulatorFlag(name);
      const args = ['emulator', ...(flag === 'port' ? [] : ['--port', '0']), `--${flag}`, '-1'];
      const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      // A flag the CLI ignored would start the emulator instead of failing: stop it then.
      const timer = setTimeout(() => child.kill('SIGTERM'), 10_000);
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      clearTimeout(timer);
      expect({ flag, code, stderr }).toEqual({ flag, code: 1, stderr: expect.stringContaining(`--${flag} must be a `) });
    }
  });
});
