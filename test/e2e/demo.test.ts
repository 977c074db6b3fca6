import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DEMO = fileURLToPath(new URL('../../dist/examples/demo/run.js', import.meta.url));

describe('npm run demo', () => {
  it('walks plan, the PR comment, a stale saved plan, apply with its "Still ..." line, drift, and references known after apply, with the expected exit codes', async () => {
    const child = spawn(process.execPath, [DEMO], {
      env: { ...process.env, NO_COLOR: '1', EDGEFORM_TASK_POLL_INTERVAL: '20' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(output).toContain('<!-- edgeform:plan stack=examples/quickstart.yaml -->');
    expect(output).toContain('```diff\n');
    // The comment's cost line: the resize of the instance, priced by the platform.
    expect(output).toContain('**Cost:** `29.20 → 58.40 EUR (+29.20)');
    expect(output).toContain('Error: Saved plan is stale: the platform changed since the plan was made. Nothing was applied.');
    expect(output).toMatch(/: Still (modifying|resizing|upgrading)\.\.\. \[\d+s elapsed\]/);
    expect(output).toContain('Apply complete! Resources: 0 added, 4 changed, 3 destroyed.');
    expect(output).toContain('No drift.');
    expect(output).toMatch(/tags\.hotfix\s+stack: \(absent\)\s+platform: "true"/);
    expect(output).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect(output).toContain('# env.ORIGIN_IP = ${cloud_floating_ip.edge.floating_ip_address} (known after apply)');
    expect(output).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
    expect(output).toContain('Plan: 7 to add, 0 to change, 0 to destroy.');
    // The instance's cloud-init script comes from its user_data_file.
    expect(output).toContain('packages: [nginx]');
    expect(output).toContain('Apply complete! Resources: 7 added, 0 changed, 0 destroyed.');
    expect(output).toContain('Apply complete! Resources: 0 added, 0 changed, 7 destroyed.');
    // A new release of the CDN site: its purge planned, then sent after the changes and recorded.
    expect(output).toContain('~ purge cdn_resource.site: /index.html, /assets/* (when: "41" → "42")');
    expect(output).toContain('Plan: 0 to add, 0 to change, 0 to destroy, then 1 purge.');
    expect(output).toContain('cdn_resource.site: Purged');
    expect(output).toContain('Apply complete! Resources: 0 added, 0 changed, 0 destroyed. 1 purge done.');
    // Two instances behind a load balancer with HTTPS (HTTP redirected to it by an L7 policy), made from nothing and destroyed; its TLS key never printed.
    expect(output).toContain('Plan: 12 to add, 0 to change, 0 to destroy.');
    expect(output).toContain('Apply complete! Resources: 12 added, 0 changed, 0 destroyed.');
    expect(output).toContain('Apply complete! Resources: 0 added, 0 changed, 12 destroyed.');
    expect(output).not.toContain('DemoKeyDemoKey');
    expect(output).not.toContain('✘');
    expect(output).toContain('Demo complete');
    expect(code).toBe(0);
  });
});
