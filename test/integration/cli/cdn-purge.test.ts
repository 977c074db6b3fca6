import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { waitFor } from '../../helpers/wait.js';

const PURGE_ROUTE = (id: number) => `/cdn/resources/${id}/purge`;

/**
 * A CDN site whose resource purges two patterns and whose rule purges a URL within its pattern,
 * for each RELEASE. (Two pattern purges of one resource would be a minute apart, the platform's
 * limit: the CLI's waits are real time, so the spacing itself is tested on the emulator's clock in
 * test/integration/providers/cdn-purge.test.ts.)
 */
const STACK = `version: 1
name: shop
resources:
  origins:
    type: cdn_origin_group
    name: shop-origins
    origins: [{ source: origin.shop.example }]
  site:
    type: cdn_resource
    cname: cdn.shop.example
    origin_group: \${cdn_origin_group.origins.id}
    description: The shop
    options:
      edge_cache_settings: { enabled: true, value: 4d }
    purge:
      paths: ["/index.html", "/assets/*"]
      when: \${env:RELEASE}
  images:
    type: cdn_rule
    resource_id: \${cdn_resource.site.id}
    name: images
    rule: /images/.*\\.png$
    rule_type: 0
    purge:
      urls: [/images/logo.png]
      when: \${env:RELEASE}
`;

describe('purging CDN caches: declared in the stack, and on demand', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  async function setUp(taskDurationMs = 0): Promise<{ env: (release: string) => Record<string, string>; stack: string; resourceId: () => number }> {
    emu = await startTestEmulator({ taskDurationMs });
    const base = emulatorEnv(emu);
    const stack = join(writeStackFiles({ 'stack.yaml': STACK }), 'stack.yaml');
    const server = emu;
    return {
      env: (release) => ({ ...base, RELEASE: release }),
      stack,
      resourceId: () => [...server.state.cdnResources.values()].find((r) => r.cname === 'cdn.shop.example')!.id,
    };
  }

  it('records the release on first create and purges nothing; purges only when RELEASE changes, after the changes, then records it', async () => {
    const { env, stack, resourceId } = await setUp();
    const created = await runCliInProcess(['apply', stack, '--auto-approve'], { env: env('41') });
    expect(created.code, created.stdout + created.stderr).toBe(0);
    const id = resourceId();
    const rule = [...emu!.state.cdnRules.values()].find((r) => r.name === 'images')!;
    // The create wrote the resource's value in its own request; the new rule's was recorded after it (nothing purged).
    expect(writesSeen(emu!).filter((w) => w.endsWith('/purge'))).toEqual([]);
    expect(emu!.state.cdnResources.get(id)!.description).toBe(`The shop [edgeform:shop] [edgeform-purged:resource=41,rule-${rule.id}=41]`);

    // Not due: the same release.
    const same = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env: env('41') });
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).toContain('No changes.');

    // Due: a new release, shown in every format.
    const text = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env: env('42') });
    expect(text.code, text.stdout + text.stderr).toBe(2);
    expect(text.stdout).toContain('  ~ purge cdn_resource.site: /index.html, /assets/* (when: "41" → "42")');
    expect(text.stdout).toContain('  ~ purge cdn_rule.images: /images/logo.png (when: "41" → "42")');
    expect(text.stdout).toContain('Plan: 0 to add, 0 to change, 0 to destroy, then 2 purges.');
    const markdown = await runCliInProcess(['plan', stack, '--format', 'markdown'], { env: env('42') });
    expect(markdown.stdout).toContain('**Plan:** 0 to add, 0 to change, 0 to destroy, then 2 purges.');
    expect(markdown.stdout).toContain('`purge cdn_resource.site: /index.html, /assets/* (when: "41" → "42")`');
    const json = JSON.parse((await runCliInProcess(['plan', stack, '--format', 'json'], { env: env('42') })).stdout);
    expect(json.format_version).toBe('2.4');
    expect(json.applyable).toBe(true);
    const site = json.resource_changes.find((c: { address: string }) => c.address === 'cdn_resource.site');
    expect(site.action).toBe('no-op');
    expect(site.follow_up).toMatchObject({
      step: 'purge',
      summary: '/index.html, /assets/*',
      changes: [{ path: ['when'], op: 'update', before: '41', after: '42' }],
      payload: { resource_id: id, key: 'resource', when: '42', target: { type: 'paths', items: ['/index.html', '/assets/*'] } },
    });

    // Apply: the option change first, then the purges (each type's limit kept), then the records.
    writeFileSync(stack, STACK.replace('value: 4d', 'value: 7d'));
    const before = emu!.requests.length;
    const applied = await runCliInProcess(['apply', stack, '--auto-approve'], { env: env('42') });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('cdn_resource.site: Purged');
    expect(applied.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed. 2 purges done.');
    const writes = emu!.requests
      .slice(before)
      .filter((r) => r.method !== 'GET')
      .map((r) => `${r.method} ${r.path} ${r.status}`);
    expect(writes).toEqual([
      `PATCH /cdn/resources/${id} 200`,
      `POST ${PURGE_ROUTE(id)} 201`,
      `PATCH /cdn/resources/${id} 200`,
      `POST ${PURGE_ROUTE(id)} 201`,
      `PATCH /cdn/resources/${id} 200`,
    ]);
    expect(emu!.state.cdnPurges.map((p) => [p.purge_type, p.items])).toEqual([
      ['purge_by_pattern', ['/index.html', '/assets/*']],
      ['purge_by_url', ['/images/logo.png']],
    ]);
    expect(emu!.state.cdnResources.get(id)!.description).toBe(`The shop [edgeform:shop] [edgeform-purged:resource=42,rule-${rule.id}=42]`);
    const after = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env: env('42') });
    expect(after.code, after.stdout).toBe(0);
  });

  it('leaves the old value recorded when a purge fails, so the next apply purges again', async () => {
    const { env, stack, resourceId } = await setUp();
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env: env('41') })).code).toBe(0);
    const id = resourceId();
    emu!.faults.failNext({ method: 'POST', path: '/cdn/resources/{resource_id}/purge', status: 400 });
    const failed = await runCliInProcess(['apply', stack, '--auto-approve', '--format', 'json'], { env: env('42') });
    expect(failed.code, failed.stderr).toBe(1);
    const events = failed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.find((e) => e.type === 'follow_up_errored')).toMatchObject({ address: 'cdn_resource.site', step: 'purge', status: 'failed' });
    const summary = events.at(-1);
    expect(summary.type).toBe('change_summary');
    expect(summary.follow_ups.map((f: { address: string; status: string }) => [f.address, f.status])).toEqual([
      ['cdn_resource.site', 'failed'],
      ['cdn_rule.images', 'applied'],
    ]);
    expect(emu!.state.cdnResources.get(id)!.description).toMatch(/\[edgeform-purged:resource=41,rule-\d+=42\]$/);

    const again = await runCliInProcess(['plan', stack], { env: env('42') });
    expect(again.stdout).toContain('~ purge cdn_resource.site: /index.html, /assets/* (when: "41" → "42")');
    expect(again.stdout).not.toContain('purge cdn_rule.images');
    const retried = await runCliInProcess(['apply', stack, '--auto-approve'], { env: env('42') });
    expect(retried.code, retried.stdout + retried.stderr).toBe(0);
    expect(emu!.state.cdnResources.get(id)!.description).toMatch(/\[edgeform-purged:resource=42,rule-\d+=42\]$/);
  });

  it('skips the purge when a change of its resource failed, and says so', async () => {
    const { env, stack, resourceId } = await setUp();
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env: env('41') })).code).toBe(0);
    writeFileSync(stack, STACK.replace('value: 4d', 'value: 7d'));
    emu!.faults.failNext({ method: 'PATCH', path: '/cdn/resources/{resource_id}', status: 400 });
    const result = await runCliInProcess(['apply', stack, '--auto-approve'], { env: env('42') });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('cdn_resource.site: purge skipped: cdn_resource.site did not succeed; the next apply does it');
    expect(emu!.state.cdnPurges).toHaveLength(0);
    expect(emu!.state.cdnResources.get(resourceId())!.description).toContain('resource=41');
  });

  it('purges on demand with each type, from the block or the flags, and asks first', async () => {
    const { env, stack, resourceId } = await setUp();
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env: env('41') })).code).toBe(0);
    const id = resourceId();

    const declared = await runCliInProcess(['purge', stack, '--target', 'cdn_resource.site', '--auto-approve'], { env: env('41') });
    expect(declared.code, declared.stdout + declared.stderr).toBe(0);
    expect(declared.stdout).toContain(`edgeform will purge cdn.shop.example (CDN resource ${id}, cdn_resource.site):`);
    expect(declared.stdout).toContain('by pattern: /index.html, /assets/*');
    expect(declared.stdout).toContain('Purge sent: 1 request accepted.');

    const urls = await runCliInProcess(['purge', '--cname', 'cdn.shop.example', '--urls', '/a.html', '/b.css?v=2', '--auto-approve'], { env: env('41') });
    expect(urls.code, urls.stderr).toBe(0);
    const all = await runCliInProcess(['purge', '--cname', 'cdn.shop.example', '--all', '--auto-approve'], { env: env('41') });
    expect(all.code, all.stderr).toBe(0);
    const rule = await runCliInProcess(['purge', stack, '--target', 'cdn_rule.images', '--auto-approve'], { env: env('41') });
    expect(rule.code, rule.stderr).toBe(0);
    expect(emu!.state.cdnPurges.map((p) => [p.purge_type, p.items])).toEqual([
      ['purge_by_pattern', ['/index.html', '/assets/*']],
      ['purge_by_url', ['/a.html', '/b.css?v=2']],
      ['purge_all', []],
      ['purge_by_url', ['/images/logo.png']],
    ]);
    expect(rule.stdout).toContain('by URL: /images/logo.png');
    // edgeform purge records nothing: the declared when stays apply's.
    expect(emu!.state.cdnResources.get(id)!.description).toContain('resource=41');

    // Outside the rule's pattern, a URL with a domain, two types: refused before anything is sent.
    const count = emu!.state.cdnPurges.length;
    const scoped = await runCliInProcess(['purge', stack, '--target', 'cdn_rule.images', '--urls', '/css/site.css', '--auto-approve'], { env: env('41') });
    expect(scoped.code).toBe(1);
    expect(scoped.stderr).toContain('cdn_rule.images: "/css/site.css" is outside the rule\'s pattern');
    const domain = await runCliInProcess(['purge', '--cname', 'cdn.shop.example', '--urls', 'https://cdn.shop.example/a.html'], { env: env('41') });
    expect(domain.code).toBe(1);
    expect(domain.stderr).toContain('--urls "https://cdn.shop.example/a.html" (value 1): must be a path without the domain');
    const both = await runCliInProcess(['purge', '--cname', 'cdn.shop.example', '--all', '--paths', '/x/*'], { env: env('41') });
    expect(both.stderr).toContain('give one of --paths, --urls and --all, not --paths and --all');
    // Without --auto-approve and without a terminal: nothing is purged.
    const asked = await runCliInProcess(['purge', '--cname', 'cdn.shop.example', '--all'], { env: env('41') });
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain('purge needs approval');
    expect(emu!.state.cdnPurges).toHaveLength(count);
  });

  it('follows the purge history with --wait until it is done, or failed, and prints one JSON document', async () => {
    // Purges take 30 s on the emulator's clock, which the test moves.
    const { env, stack, resourceId } = await setUp(30_000);
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env: env('41') })).code).toBe(0);
    const server = emu!;
    const running = runCliInProcess(['purge', stack, '--target', 'cdn_resource.site', '--auto-approve', '--wait', '--format', 'json'], { env: env('41') });
    // The purge is in progress until the emulator's clock passes its duration.
    await waitFor(() => server.requests.filter((r) => r.path === '/cdn/purge_statuses').length >= 3, { what: 'the purge history read while in progress' });
    server.clock.advance(30_000);
    const done = await running;
    expect(done.code, done.stderr).toBe(0);
    const doc = JSON.parse(done.stdout);
    expect(doc).toMatchObject({
      address: 'cdn_resource.site',
      resource: { id: resourceId(), cname: 'cdn.shop.example' },
      purge: { type: 'paths', items: ['/index.html', '/assets/*'], requests: 1 },
      status: 'successful',
      purges: [{ purge_id: 1, status: 'Successful' }],
      error: null,
    });

    // An inactive resource's purge fails on the platform: --wait says so and exits 1.
    server.state.cdnResources.get(resourceId())!.active = false;
    const failing = runCliInProcess(['purge', '--cname', 'cdn.shop.example', '--all', '--auto-approve', '--wait'], { env: env('41') });
    await waitFor(() => server.state.cdnPurges.length === 2, { what: 'the second purge' });
    server.clock.advance(30_000);
    const failed = await failing;
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('Purge failed: the platform reports purge 2 Failed.');
  });
});
