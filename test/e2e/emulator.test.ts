import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
});
