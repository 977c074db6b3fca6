/**
 * cloud_lb_l7policy (issue 34) through the CLI in-process against the emulator: rules compared as
 * a set (a changed list deletes and adds rules, keeping the others, without a PATCH of the
 * policy), prune only inside a balancer the stack owns, a listener change planned -/+, what the
 * platform would refuse refused at validate and plan with nothing sent, and import with the
 * references between the kinds, which plans clean.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorFixtures } from '../../../src/emulator/index.js';
import { driveTasks, emulatorEnv } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const uuid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const OURS = uuid('6a000000', 1);
const THEIRS = uuid('6a000000', 2);
const HTTP = uuid('6b000000', 1);
const HTTP_ALT = uuid('6b000000', 2);
const THEIR_HTTP = uuid('6b000000', 3);
const POOL = uuid('6c000000', 1);
const THEIR_POOL = uuid('6c000000', 2);
const REDIRECT = uuid('6d000000', 1);

/** Balancer "web" of stack "web" (an HTTP listener with a redirect and a stray policy, another HTTP listener, a pool), and another stack's balancer with a policy. */
const FIXTURES = {
  load_balancers: [
    {
      id: OURS,
      name: 'web-lb',
      tags: { 'edgeform-stack': 'web', 'edgeform-address': 'cloud_load_balancer.lb' },
      listeners: [
        {
          id: HTTP,
          name: 'http',
          protocol: 'HTTP',
          protocol_port: 80,
          l7_policies: [
            {
              id: REDIRECT,
              name: 'to-https',
              action: 'REDIRECT_PREFIX',
              redirect_prefix: 'https://web.example.com',
              redirect_http_code: 301,
              rules: [
                { type: 'PATH', compare_type: 'STARTS_WITH', value: '/' },
                { type: 'HEADER', compare_type: 'EQUAL_TO', key: 'X-Old', value: '1' },
              ],
            },
            { name: 'stray', action: 'REJECT' },
          ],
        },
        { id: HTTP_ALT, name: 'http-alt', protocol: 'HTTP', protocol_port: 8080, pool: { id: POOL, name: 'web', protocol: 'HTTP', members: [] } },
      ],
    },
    {
      id: THEIRS,
      name: 'their-lb',
      listeners: [
        {
          id: THEIR_HTTP,
          name: 'http',
          protocol: 'HTTP',
          protocol_port: 80,
          pool: { id: THEIR_POOL, name: 'theirs', protocol: 'HTTP', members: [] },
          l7_policies: [{ name: 'theirs', action: 'REJECT' }],
        },
      ],
    },
  ],
};

/** The stack declaring balancer "web" with its listeners and pool, and `policy` (YAML lines of the policy block's fields). */
const stack = (policy: string, head = '') => `version: 1
name: web
${head}defaults: { project_id: 1, region_id: 76 }
resources:
  lb: { type: cloud_load_balancer, name: web-lb }
  http: { type: cloud_lb_listener, name: http, load_balancer_id: "\${cloud_load_balancer.lb.id}", protocol: HTTP, protocol_port: 80 }
  http_alt: { type: cloud_lb_listener, name: http-alt, load_balancer_id: "\${cloud_load_balancer.lb.id}", protocol: HTTP, protocol_port: 8080 }
  pool: { type: cloud_lb_pool, name: web, load_balancer_id: "\${cloud_load_balancer.lb.id}", listener_id: "\${cloud_lb_listener.http_alt.id}", lb_algorithm: ROUND_ROBIN, protocol: HTTP, members: [] }
  to_https:
    type: cloud_lb_l7policy
    name: to-https
${policy}`;

const REDIRECT_BLOCK = `    listener_id: \${cloud_lb_listener.http.id}
    action: REDIRECT_PREFIX
    redirect_prefix: https://web.example.com
    redirect_http_code: 301
`;

describe('cloud_lb_l7policy', () => {
  let emu: TestEmulator;
  const started: TestEmulator[] = [];
  async function seed(fixtures: unknown = FIXTURES): Promise<void> {
    emu = await startTestEmulator({ taskDurationMs: 1000, fixtures: fixtures as EmulatorFixtures });
    started.push(emu);
  }
  afterEach(async () => {
    await Promise.all(started.splice(0).map((e) => e.close()));
  });
  const cli = (args: string[]) => driveTasks(emu, runCliInProcess(args, { env: emulatorEnv(emu) }), 1000);
  const writes = () => emu.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.route} ${r.status}`);

  it('compares rules as a set: a changed list deletes the rule no longer declared and adds the new one, keeps the other, and sends no PATCH; prune takes the stray policy of its own balancer only', async () => {
    await seed();
    const kept = emu.state.lbL7Policies.get(REDIRECT)!.rules.find((r) => r.type === 'PATH')!.id;
    const yaml = stack(
      `${REDIRECT_BLOCK}    rules:\n      - { type: HOST_NAME, compare_type: EQUAL_TO, value: web.example.com }\n      - { type: PATH, compare_type: STARTS_WITH, value: / }\n`,
      'prune: true\n',
    );
    const file = join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');
    const plan = await cli(['plan', file, '--format', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    const changes = (
      JSON.parse(plan.stdout) as { resource_changes: Array<{ address: string; action: string; pruned?: boolean; changes: Array<{ path: string[] }> }> }
    ).resource_changes.filter((c) => c.action !== 'no-op');
    const stray = [...emu.state.lbL7Policies.values()].find((p) => p.name === 'stray')!;
    expect(changes.map((c) => [c.address, c.action, c.pruned ?? false, c.changes.map((f) => f.path.join('.'))])).toEqual([
      [`cloud_lb_l7policy.${OURS}/${stray.id}`, 'delete', true, []],
      ['cloud_lb_l7policy.to_https', 'update', false, ['rules']],
    ]);

    emu.requests.length = 0;
    const applied = await cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 1 destroyed.');
    expect(writes().sort()).toEqual(
      [
        'DELETE /cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id} 200',
        'DELETE /cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules/{l7rule_id} 200',
        'POST /cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules 200',
      ].sort(),
    );
    const policy = emu.state.lbL7Policies.get(REDIRECT)!;
    expect(policy.rules.map((r) => `${r.type} ${r.compare_type} ${r.value}`).sort()).toEqual(['HOST_NAME EQUAL_TO web.example.com', 'PATH STARTS_WITH /']);
    expect(policy.rules.find((r) => r.type === 'PATH')!.id).toBe(kept);
    // The other stack's policy is untouched.
    expect([...emu.state.lbL7Policies.values()].map((p) => p.name).sort()).toEqual(['theirs', 'to-https']);

    const again = await cli(['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });

  it('changes the redirect with one PATCH; on another listener it is found by name there: created with its rules, and the old one pruned', async () => {
    await seed();
    const rules = `    rules:\n      - { type: PATH, compare_type: STARTS_WITH, value: / }\n      - { type: HEADER, compare_type: EQUAL_TO, key: X-Old, value: "1" }\n`;
    const codeOnly = join(writeStackFiles({ 'stack.yaml': stack(`${REDIRECT_BLOCK.replace('301', '308')}${rules}`) }), 'stack.yaml');
    emu.requests.length = 0;
    const applied = await cli(['apply', codeOnly, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(writes()).toEqual(['PATCH /cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id} 200']);
    expect([emu.state.lbL7Policies.get(REDIRECT)!.redirect_http_code, emu.state.lbL7Policies.get(REDIRECT)!.rules.length]).toEqual([308, 2]);

    const moved = join(writeStackFiles({ 'stack.yaml': stack(`${REDIRECT_BLOCK.replace('http.id', 'http_alt.id')}${rules}`, 'prune: true\n') }), 'stack.yaml');
    emu.requests.length = 0;
    const replaced = await cli(['apply', moved, '--auto-approve']);
    expect(replaced.code, replaced.stdout + replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 2 destroyed.');
    const now = [...emu.state.lbL7Policies.values()].filter((p) => p.name === 'to-https');
    expect(now.map((p) => [p.listener_id, p.rules.length])).toEqual([[HTTP_ALT, 2]]);
    const again = await cli(['plan', moved, '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it('refuses at validate, located and with nothing sent: a URL redirect without its URL, a field of another action, a HEADER rule without its key, a repeated rule', async () => {
    await seed();
    const yaml = stack(`    listener_id: \${cloud_lb_listener.http.id}
    action: REDIRECT_TO_URL
    redirect_prefix: https://web.example.com
    rules:
      - { type: HEADER, compare_type: EQUAL_TO, value: "1" }
      - { type: PATH, compare_type: STARTS_WITH, value: / }
      - { type: PATH, compare_type: STARTS_WITH, value: / }
`);
    const file = join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');
    emu.requests.length = 0;
    const result = await cli(['validate', file]);
    expect(result.code).toBe(1);
    const out = result.stdout + result.stderr;
    expect(out).toMatch(/stack\.yaml:\d+:\d+: error: .*redirect_url.*must be set for a REDIRECT_TO_URL policy/);
    expect(out).toMatch(/stack\.yaml:\d+:\d+: error: .*redirect_prefix.*is only for a REDIRECT_PREFIX policy, not REDIRECT_TO_URL/);
    expect(out).toMatch(/stack\.yaml:\d+:\d+: error: .*rules\[0\]\.key.*must be set for a HEADER rule/);
    expect(out).toMatch(/stack\.yaml:\d+:\d+: error: .*rules\[2\].*repeats rule 1/);
    expect(emu.requests).toEqual([]);
  });

  it("refuses at plan a redirect to a pool of another balancer than its listener's, with nothing written", async () => {
    await seed();
    const yaml = stack(`    listener_id: \${cloud_lb_listener.http.id}\n    action: REDIRECT_TO_POOL\n    redirect_pool_id: ${THEIR_POOL}\n`).replace(
      'name: to-https',
      'name: to-pool',
    );
    const file = join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml');
    const plan = await cli(['plan', file]);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain(`pool ${THEIR_POOL} is on load balancer ${THEIRS}, not on the listener's (${OURS})`);
    const apply = await cli(['apply', file, '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(writes()).toEqual([]);
    // Its own balancer's pool is accepted.
    const ok = join(writeStackFiles({ 'stack.yaml': yaml.replace(THEIR_POOL, '${cloud_lb_pool.pool.id}') }), 'stack.yaml');
    const applied = await cli(['apply', ok, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect([...emu.state.lbL7Policies.values()].find((p) => p.name === 'to-pool')?.redirect_pool_id).toBe(POOL);
  });

  it('refuses at plan a policy adopted by its id whose listener changes: the new policy could not be named by that id', async () => {
    await seed();
    const yaml = stack(`    l7policy_id: ${REDIRECT}\n${REDIRECT_BLOCK.replace('http.id', 'http_alt.id')}`);
    const plan = await cli(['plan', join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml')]);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain(`listener_id of L7 policy ${REDIRECT} cannot change in place`);
    expect(plan.stdout + plan.stderr).toContain('remove l7policy_id (the L7 policy is found by its listener and name)');
    expect(writes()).toEqual([]);
  });

  it('imports policies with their rules, the listener and the pool as references, and the import plans clean', async () => {
    const ours = FIXTURES.load_balancers[0]!;
    const listeners = [
      { ...ours.listeners[0]!, l7_policies: [...(ours.listeners[0]!.l7_policies ?? []), { name: 'api', action: 'REDIRECT_TO_POOL', redirect_pool_id: POOL }] },
      ours.listeners[1]!,
    ];
    await seed({ load_balancers: [{ ...ours, tags: {}, listeners }] });
    const file = join(writeStackFiles({}), 'imported.yaml');
    const imported = await cli(['import', 'cloud_load_balancer', '--project-id', '1', '--region-id', '76', '--out', file]);
    expect(imported.code, imported.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.match(/type: cloud_lb_l7policy/g), imported.stdout + imported.stderr + text).toHaveLength(3);
    expect(text).toContain('listener_id: "${cloud_lb_listener.http.id}"');
    expect(text).toContain('redirect_pool_id: "${cloud_lb_pool.web.id}"');
    expect(text).toContain('key: X-Old');
    const plan = await cli(['plan', file, '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  });
});
