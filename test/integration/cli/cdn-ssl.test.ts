import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writesSeen, useCliEmulators } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** An origin group and a resource on it; `ssl` is the resource's SSL lines. */
const stack = (cname: string, ssl: string) => `version: 1
name: le-site
resources:
  origins:
    type: cdn_origin_group
    name: le-origins
    origins: [{ source: origin.example.com }]
  site:
    type: cdn_resource
    cname: ${cname}
    origin_group: \${cdn_origin_group.origins.id}
${ssl}`;

describe("cdn_resource ssl_automated: a Let's Encrypt certificate", () => {
  const start = useCliEmulators();

  it('creates the resource, creates and attaches the certificate and waits for it; plans no changes (one certificate list); false revokes; true again reuses it', async () => {
    const { emu, env } = await start();
    const dir = writeStackFiles({ 'stack.yaml': stack('cdn.example.com', '    ssl_automated: true\n') });
    const file = join(dir, 'stack.yaml');

    const plan = await runCliInProcess(['plan', file], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('ssl_automated: true');
    expect(plan.stdout).toContain(
      `issues a Let's Encrypt certificate for cdn.example.com ("letsencrypt cdn.example.com", created unless the account has it) and waits until it is issued`,
    );

    const created = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(created.code, created.stdout + created.stderr).toBe(0);
    const [resource] = [...emu.state.cdnResources.values()];
    const [cert] = [...emu.state.cdnCertificates.values()];
    expect(cert).toMatchObject({ name: 'letsencrypt cdn.example.com', automated: true });
    expect(resource).toMatchObject({ sslData: cert!.id, sslEnabled: true });
    const path = `/cdn/resources/${resource!.id}`;
    expect(writesSeen(emu)).toEqual(['POST /cdn/origin_groups', 'POST /cdn/resources', 'POST /cdn/sslData', `PATCH ${path}`]);
    expect(emu.requests.some((r) => r.method === 'GET' && r.path === `/cdn/sslData/${cert!.id}/status`)).toBe(true);

    const before = emu.requests.length;
    const again = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes');
    expect(emu.requests.slice(before).filter((r) => r.path === '/cdn/sslData')).toHaveLength(1);

    writeFileSync(file, stack('cdn.example.com', '    ssl_automated: false\n'));
    const revokePlan = await runCliInProcess(['plan', file], { env });
    expect(revokePlan.stdout).toContain('ssl_automated: true -> false');
    expect(revokePlan.stdout).toContain("revokes the Let's Encrypt certificate of cdn.example.com (HTTPS off)");
    const writes = writesSeen(emu).length;
    const revoked = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(revoked.code, revoked.stdout + revoked.stderr).toBe(0);
    expect(writesSeen(emu).slice(writes)).toEqual([`PATCH ${path}`]);
    expect(emu.state.cdnResources.get(resource!.id)).toMatchObject({ sslData: null, sslEnabled: false });
    expect((await runCliInProcess(['plan', file, '--detailed-exitcode'], { env })).code).toBe(0);

    // Issued again from a saved plan (its payload says so), reusing the certificate.
    writeFileSync(file, stack('cdn.example.com', '    ssl_automated: true\n'));
    const saved = join(dir, 'plan.json');
    expect((await runCliInProcess(['plan', 'stack.yaml', '--out', saved], { env, cwd: dir })).code).toBe(0);
    const reissued = await runCliInProcess(['apply', saved], { env, cwd: dir });
    expect(reissued.code, reissued.stdout + reissued.stderr).toBe(0);
    expect(writesSeen(emu).filter((w) => w === 'POST /cdn/sslData')).toHaveLength(1);
    expect(emu.state.cdnResources.get(resource!.id)).toMatchObject({ sslData: cert!.id, sslEnabled: true });
  });

  it('a stack without ssl_automated never lists certificates', async () => {
    const { emu, env } = await start();
    const dir = writeStackFiles({ 'stack.yaml': stack('cdn.example.com', '    ssl_enabled: false\n') });
    const applied = await runCliInProcess(['apply', join(dir, 'stack.yaml'), '--auto-approve'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect((await runCliInProcess(['plan', join(dir, 'stack.yaml'), '--detailed-exitcode'], { env })).code).toBe(0);
    expect(emu.requests.filter((r) => r.path.startsWith('/cdn/sslData'))).toEqual([]);
  });

  it('an issuing that fails is a named error naming the resource and the platform reason; the certificate is detached and the next plan issues again', async () => {
    const { emu, env } = await start();
    const dir = writeStackFiles({ 'stack.yaml': stack('cdn.example.invalid', '    ssl_automated: true\n') });
    const file = join(dir, 'stack.yaml');
    const applied = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(applied.code).toBe(1);
    expect(applied.stdout + applied.stderr).toContain(
      "cdn_resource.site (create): the Let's Encrypt certificate for cdn.example.invalid was not issued: Failed: DNSProblem: DNS problem: NXDOMAIN looking up A for cdn.example.invalid",
    );
    const [resource] = [...emu.state.cdnResources.values()];
    expect(resource).toMatchObject({ sslData: null, sslEnabled: false });
    const plan = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('ssl_automated: false -> true');
  });

  it('validate: ssl_automated with ssl_data is an error at ssl_automated; true with ssl_enabled: false at ssl_enabled; nothing is sent', async () => {
    const both = writeStackFiles({ 'stack.yaml': stack('cdn.example.com', '    ssl_enabled: true\n    ssl_data: 5\n    ssl_automated: true\n') });
    const result = await runCliInProcess(['validate', join(both, 'stack.yaml')], { env: {} });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain("stack.yaml:14:20: error: ssl_automated: set ssl_data (your certificate) or ssl_automated (a Let's Encrypt one), not both");
    const off = writeStackFiles({ 'stack.yaml': stack('cdn.example.com', '    ssl_enabled: false\n    ssl_automated: true\n') });
    const second = await runCliInProcess(['validate', join(off, 'stack.yaml')], { env: {} });
    expect(second.code).toBe(1);
    expect(second.stdout + second.stderr).toContain('stack.yaml:12:18: error: ssl_enabled: ssl_automated: true serves HTTPS: leave ssl_enabled out or set it to true');
  });
});
