/**
 * The load balancer kinds (issue 34) through the CLI in-process against the emulator:
 * examples/load-balanced.yaml from nothing (every request the kinds send held against the vendor
 * OpenAPI on the way), a member added as one pool PATCH, everything destroyed in reverse order;
 * a no-change plan of many balancers costing the list pages; a busy balancer's 409 waited out;
 * prune only inside a balancer the stack owns; import with the key never written; two secrets of
 * one name refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorFixtures } from '../../../src/emulator/index.js';
import { driveTasks, emulatorEnv } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { expectValid, queryChecker, requestValidator } from '../../helpers/openapi.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { TEST_TLS_KEY } from '../../helpers/tls-key.js';
import { waitFor } from '../../helpers/wait.js';

const CLOUD = 'cloud_api.yaml';
const EXAMPLE = 'examples/load-balanced.yaml';
const uuid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The vendor's path template of a load balancer family request path (`/cloud/v2/lbpools/1/76/<id>` → `.../{pool_id}`). */
function templateOf(path: string): string | undefined {
  const m = /^\/cloud\/(v1|v2)\/(loadbalancers|lblisteners|lbpools|secrets|l7policies)\/\d+\/\d+(\/[^/]+)?(\/resize|\/rules)?(\/[^/]+)?$/.exec(path);
  if (!m) return undefined;
  const param = { loadbalancers: 'loadbalancer_id', lblisteners: 'listener_id', lbpools: 'pool_id', secrets: 'secret_id', l7policies: 'l7policy_id' }[m[2] as 'lbpools'];
  return `/cloud/${m[1]}/${m[2]}/{project_id}/{region_id}${m[3] ? `/{${param}}` : ''}${m[4] ?? ''}${m[5] ? '/{l7rule_id}' : ''}`;
}

/** Files of the example, for a copy of it in a temporary directory. */
const exampleFiles = (yaml: string) => ({
  'load-balanced.yaml': yaml,
  'load-balanced.crt': readFileSync('examples/load-balanced.crt', 'utf8'),
  'load-balanced.chain.crt': readFileSync('examples/load-balanced.chain.crt', 'utf8'),
});

describe('examples/load-balanced.yaml', () => {
  let emu: TestEmulator;
  let proxy: LoopbackServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    emu = await startTestEmulator({ taskDurationMs: 1000 });
    // Every request passes through a loopback proxy that keeps it, so its body can be held against the vendor spec.
    proxy = await startLoopbackServer(async (req, res) => {
      const upstream = await fetch(`${emu.url}${req.url}`, {
        method: req.method,
        headers: { authorization: String(req.headers.authorization ?? ''), ...(req.headers['content-type'] ? { 'content-type': String(req.headers['content-type']) } : {}) },
        ...(req.body === '' ? {} : { body: req.body }),
      });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(await upstream.text());
    });
    env = { ...emulatorEnv(emu), EDGEFORM_BASE_URL: proxy.url, WEB_TLS_KEY: TEST_TLS_KEY };
  });
  afterAll(async () => {
    await proxy.close();
    await emu.close();
  });

  const cli = async (args: string[]) => {
    const result = await driveTasks(emu, runCliInProcess(args, { env }), 1000);
    // The private key is never printed, whatever happens.
    expect(`${result.stdout}${result.stderr}`).not.toContain('FakeTestKey');
    return result;
  };
  const lbWrites = () => emu.requests.filter((r) => r.method !== 'GET' && templateOf(r.path) !== undefined && r.status < 300).map((r) => `${r.method} ${templateOf(r.path)!}`);

  it('plans 12 creates (the HTTP listener redirecting to HTTPS), applies them in dependency order with each balancer write alone, then no changes; a member added is one pool PATCH; absent destroys in reverse order', async () => {
    const plan = await cli(['plan', EXAMPLE, '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('Plan: 12 to add, 0 to change, 0 to destroy.');
    expect(plan.stdout).toContain('+ load_balancer_id: (known after apply)');
    expect(plan.stdout).toContain('# members[1].address = ${cloud_instance.web_2.fixed_ip_address} (known after apply)');
    expect(plan.stdout).toContain('+ private_key: "${env:WEB_TLS_KEY}"');

    emu.requests.length = 0;
    proxy.requests.length = 0;
    const applied = await cli(['apply', EXAMPLE, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 12 added, 0 changed, 0 destroyed.');
    const posts = lbWrites().sort();
    expect(posts).toEqual(
      [
        'POST /cloud/v2/secrets/{project_id}/{region_id}',
        'POST /cloud/v1/loadbalancers/{project_id}/{region_id}',
        'POST /cloud/v1/lblisteners/{project_id}/{region_id}',
        'POST /cloud/v1/lblisteners/{project_id}/{region_id}',
        'POST /cloud/v1/lbpools/{project_id}/{region_id}',
        'POST /cloud/v1/l7policies/{project_id}/{region_id}',
        'POST /cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules',
      ].sort(),
    );
    // The balancer's children were written one at a time: it never answered "busy".
    expect(emu.requests.filter((r) => r.status === 409)).toEqual([]);
    // Every request the kinds sent is one the vendor documents: bodies and queries.
    for (const req of proxy.requests) {
      const [path, query] = req.url.split('?') as [string, string | undefined];
      const template = templateOf(path);
      if (template === undefined) continue;
      if (req.body !== '') expectValid(requestValidator(CLOUD, req.method, template), JSON.parse(req.body));
      expect(queryChecker(CLOUD, req.method, template)(new URLSearchParams(query ?? '')), `${req.method} ${req.url}`).toEqual([]);
      // The key goes to the platform once, in the secret's create, and nowhere else.
      if (req.body.includes('FakeTestKey')) expect(template).toBe('/cloud/v2/secrets/{project_id}/{region_id}');
    }
    const [lb] = [...emu.state.loadBalancers.values()];
    expect([lb!.name, lb!.flavor, lb!.provisioning_status]).toEqual(['lb-web', 'lb1-1-2', 'ACTIVE']);
    const [pool] = [...emu.state.lbPools.values()];
    expect(pool!.members.map((m) => `${m.address}:${m.protocol_port}`)).toEqual(['10.30.0.2:8080', '10.30.0.3:8080']);
    expect(pool!.healthmonitor?.url_path).toBe('/healthz');
    // The HTTP listener redirects every path to HTTPS with a 301.
    const [policy] = [...emu.state.lbL7Policies.values()];
    const http = [...emu.state.lbListeners.values()].find((l) => l.name === 'http')!;
    expect([policy!.listener_id, policy!.action, policy!.redirect_prefix, policy!.redirect_http_code, policy!.position]).toEqual([
      http.id,
      'REDIRECT_PREFIX',
      'https://web.example.com',
      301,
      1,
    ]);
    expect(policy!.rules.map((r) => `${r.type} ${r.compare_type} ${r.value}`)).toEqual(['PATH STARTS_WITH /']);

    const again = await cli(['plan', EXAMPLE, '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');

    // Sending the certificate again replaces the secret, which the HTTPS listener uses: the platform
    // would refuse its delete (409), so the plan refuses it, at the secret's block, before any write.
    emu.requests.length = 0;
    const rotate = await cli(['apply', EXAMPLE, '--auto-approve', '--resend-sensitive', 'cloud_secret.cert']);
    expect(rotate.code).toBe(1);
    expect(rotate.stdout + rotate.stderr).toMatch(
      /load-balanced\.yaml:62:3: error: cloud_secret\.cert cannot be replaced \(destroyed, then created again\): the platform refuses to delete it while cloud_lb_listener\.https uses it, and this plan does not destroy that/,
    );
    expect(lbWrites()).toEqual([]);

    // A third instance, added as a member: one pool PATCH that keeps the two members it had.
    const third = readFileSync(EXAMPLE, 'utf8')
      .replace(
        '  lb_ip:\n',
        '  web_3:\n    type: cloud_instance\n    flavor_id: g2-standard-2-4\n    name: lb-web-3\n    image_id: 0a1b2c3d-0000-4000-8000-0000000000aa\n    boot_volume_size: 20\n    interfaces:\n      - { type: subnet, network_id: "${cloud_network.net.id}", subnet_id: "${cloud_subnet.subnet.id}" }\n  lb_ip:\n',
      )
      .replace(
        '    healthmonitor:',
        '      - { address: "${cloud_instance.web_3.fixed_ip_address}", protocol_port: 8080, instance_id: "${cloud_instance.web_3.id}" }\n    healthmonitor:',
      );
    const dir = writeStackFiles(exampleFiles(third));
    const kept = pool!.members.map((m) => m.id);
    emu.requests.length = 0;
    const grown = await cli(['apply', join(dir, 'load-balanced.yaml'), '--auto-approve']);
    expect(grown.code, grown.stdout + grown.stderr).toBe(0);
    expect(grown.stdout).toContain('Apply complete! Resources: 1 added, 1 changed, 0 destroyed.');
    expect(lbWrites()).toEqual(['PATCH /cloud/v2/lbpools/{project_id}/{region_id}/{pool_id}']);
    const grownPool = emu.state.lbPools.get(pool!.id)!;
    expect(grownPool.members.map((m) => `${m.address}:${m.protocol_port}`)).toEqual(['10.30.0.2:8080', '10.30.0.3:8080', '10.30.0.4:8080']);
    expect(grownPool.members.slice(0, 2).map((m) => m.id)).toEqual(kept);

    // ensure: absent on every block: the pool, the listeners, then the balancer and the secret.
    const absent = third.replace(/^(  [a-z_0-9]+:\n    type: .*)$/gm, '$1\n    ensure: absent');
    const gone = writeStackFiles(exampleFiles(absent));
    emu.requests.length = 0;
    const destroyed = await cli(['apply', join(gone, 'load-balanced.yaml'), '--auto-approve']);
    expect(destroyed.code, destroyed.stdout + destroyed.stderr).toBe(0);
    expect(destroyed.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 13 destroyed.');
    const deletes = lbWrites();
    const first = (template: string) => deletes.indexOf(`DELETE ${template}`);
    const last = (template: string) => deletes.lastIndexOf(`DELETE ${template}`);
    const listeners = '/cloud/v1/lblisteners/{project_id}/{region_id}/{listener_id}';
    // The pool before the listener it is on (the other listener has none and may go first), the balancer and the secret after both listeners.
    expect(first('/cloud/v1/lbpools/{project_id}/{region_id}/{pool_id}')).toBeLessThan(last(listeners));
    // The L7 policy before its listener.
    expect(first('/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}')).toBeGreaterThanOrEqual(0);
    expect(first('/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}')).toBeLessThan(last(listeners));
    expect(first('/cloud/v1/loadbalancers/{project_id}/{region_id}/{loadbalancer_id}')).toBeGreaterThan(last(listeners));
    expect(first('/cloud/v1/secrets/{project_id}/{region_id}/{secret_id}')).toBeGreaterThan(last(listeners));
    expect(deletes).toHaveLength(6);
    expect([emu.state.loadBalancers.size, emu.state.lbListeners.size, emu.state.lbPools.size, emu.state.lbL7Policies.size, emu.state.secrets.size]).toEqual([0, 0, 0, 0, 0]);
  });
});

/** A fleet of `count` balancers of stack "fleet", each with an HTTP listener and its pool and a TCP listener, as fixtures and as blocks that declare them as they are. */
function fleet(count: number, extra: { listeners?: boolean } = {}) {
  const load_balancers = [];
  const blocks: string[] = [];
  for (let i = 1; i <= count; i++) {
    load_balancers.push({
      id: uuid('5a000000', i),
      name: `lb-${i}`,
      flavor: 'lb1-1-2',
      tags: { 'edgeform-stack': 'fleet', 'edgeform-address': `cloud_load_balancer.lb_${i}` },
      listeners: [
        { name: 'http', protocol: 'HTTP', protocol_port: 80, pool: { name: 'web', protocol: 'HTTP', members: [{ address: '10.0.0.10', protocol_port: 8080 }] } },
        { name: 'tcp', protocol: 'TCP', protocol_port: 5432 },
        ...(extra.listeners ? [{ name: 'stray', protocol: 'TCP', protocol_port: 6000 }] : []),
      ],
    });
    const lb = `\${cloud_load_balancer.lb_${i}.id}`;
    blocks.push(
      `  lb_${i}: { type: cloud_load_balancer, name: lb-${i} }`,
      `  http_${i}: { type: cloud_lb_listener, name: http, load_balancer_id: "${lb}", protocol: HTTP, protocol_port: 80 }`,
      `  tcp_${i}: { type: cloud_lb_listener, name: tcp, load_balancer_id: "${lb}", protocol: TCP, protocol_port: 5432 }`,
      `  pool_${i}: { type: cloud_lb_pool, name: web, load_balancer_id: "${lb}", listener_id: "\${cloud_lb_listener.http_${i}.id}", lb_algorithm: ROUND_ROBIN, protocol: HTTP, members: [{ address: 10.0.0.10, protocol_port: 8080 }] }`,
    );
  }
  return { fixtures: { load_balancers }, yaml: `version: 1\nname: fleet\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n${blocks.join('\n')}\n` };
}

describe('load balancer kinds', () => {
  let emu: TestEmulator;
  const started: TestEmulator[] = [];
  /** An emulator seeded with these fixtures (tasks a second long), closed after the test. */
  async function seed(fixtures: unknown, taskDurationMs = 1000): Promise<void> {
    emu = await startTestEmulator({ taskDurationMs, fixtures: fixtures as EmulatorFixtures });
    started.push(emu);
  }
  afterEach(async () => {
    await Promise.all(started.splice(0).map((e) => e.close()));
  });
  const env = () => emulatorEnv(emu);

  it.each([3, 30])('a no-change plan of %i balancers with their listeners and pools costs the list pages, not a request per child', async (count) => {
    const world = fleet(count);
    await seed(world.fixtures);
    const dir = writeStackFiles({ 'stack.yaml': world.yaml });
    emu.requests.length = 0;
    const plan = await runCliInProcess(['plan', join(dir, 'stack.yaml'), '--detailed-exitcode'], { env: env() });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // One list of the place's balancers (by the stack's ownership tags), one of its listeners, one of its pools: whatever the count.
    expect(emu.requests.map((r) => `${r.method} ${r.route}`).sort()).toEqual([
      'GET /cloud/v1/lblisteners/{project_id}/{region_id}',
      'GET /cloud/v1/lbpools/{project_id}/{region_id}',
      'GET /cloud/v1/loadbalancers/{project_id}/{region_id}',
    ]);
  });

  it('prunes the listeners no block declares of a balancer the stack owns, and nothing of another balancer', async () => {
    const world = fleet(1, { listeners: true });
    const other = { id: uuid('5b000000', 1), name: 'not-ours', flavor: 'lb1-1-2', listeners: [{ name: 'stray', protocol: 'TCP', protocol_port: 6000 }] };
    await seed({ load_balancers: [...world.fixtures.load_balancers, other] });
    const dir = writeStackFiles({ 'stack.yaml': world.yaml.replace('name: fleet\n', 'name: fleet\nprune: true\n') });
    const plan = await runCliInProcess(['plan', join(dir, 'stack.yaml'), '--format', 'json'], { env: env() });
    expect(plan.code, plan.stderr).toBe(0);
    const changes = (JSON.parse(plan.stdout) as { resource_changes: Array<{ address: string; action: string; pruned?: boolean }> }).resource_changes.filter(
      (c) => c.action !== 'no-op',
    );
    const stray = [...emu.state.lbListeners.values()].find((l) => l.name === 'stray' && l.load_balancer_id === uuid('5a000000', 1))!;
    expect(changes.map((c) => [c.address, c.action, c.pruned])).toEqual([[`cloud_lb_listener.${uuid('5a000000', 1)}/${stray.id}`, 'delete', true]]);
  });

  it("waits out a busy balancer's 409 and sends the write again once its task ended", async () => {
    const world = fleet(1);
    // Tasks of ten minutes of the emulator's clock, which only the test moves on: the balancer stays busy until it does.
    await seed(world.fixtures, 600_000);
    const lbId = uuid('5a000000', 1);
    // Someone else renames the balancer: a task holds it for a minute.
    const busy = await emu.call('PATCH', `/cloud/v2/loadbalancers/1/76/${lbId}`, { body: { name: 'lb-1-renamed' } });
    expect(busy.status).toBe(200);
    const dir = writeStackFiles({
      'stack.yaml': world.yaml.replace('protocol: TCP, protocol_port: 5432 }', 'protocol: TCP, protocol_port: 5432, connection_limit: 500 }'),
    });
    emu.requests.length = 0;
    const running = runCliInProcess(['apply', join(dir, 'stack.yaml'), '--auto-approve'], { env: env() });
    // The listener's PATCH meets the busy balancer first; only then does the emulator's clock move on.
    await waitFor(() => emu.requests.some((r) => r.status === 409), { what: 'the busy 409' });
    const applied = await driveTasks(emu, running, 60_000);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
    const patches = emu.requests.filter((r) => r.method === 'PATCH' && r.route === '/cloud/v2/lblisteners/{project_id}/{region_id}/{listener_id}');
    expect(patches.map((r) => r.status)).toEqual([409, 200]);
    const tcp = [...emu.state.lbListeners.values()].find((l) => l.name === 'tcp')!;
    expect(tcp.connection_limit).toBe(500);
  });

  it('imports balancers with their listeners, pools and secrets, the key never written (a ${env:...} placeholder, with a warning naming it), and the import plans clean once it is set', async () => {
    const secretId = uuid('5c000000', 1);
    await seed({
      secrets: [{ id: secretId, name: 'web-cert' }],
      load_balancers: [
        {
          id: uuid('5a000000', 1),
          name: 'web-lb',
          flavor: 'lb1-2-4',
          tags: { team: 'web' },
          listeners: [
            {
              name: 'https',
              protocol: 'TERMINATED_HTTPS',
              protocol_port: 443,
              secret_id: secretId,
              pool: {
                name: 'web',
                protocol: 'HTTP',
                members: [{ address: '10.0.0.10', protocol_port: 8080 }],
                healthmonitor: { type: 'HTTP', delay: 10, timeout: 5, max_retries: 3 },
              },
            },
          ],
        },
      ],
    });
    const file = join(writeStackFiles({}), 'imported.yaml');
    const imported = await runCliInProcess(['import', 'cloud_load_balancer', '--project-id', '1', '--region-id', '76', '--out', file], { env: env() });
    expect(imported.code, imported.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('type: cloud_secret');
    // The key is never written: the block adopts the secret by its id and reads its key from a variable the warning names.
    expect(text).toContain('    private_key: "${env:TLS_KEY_WEB_CERT}"\n');
    expect(imported.stderr).toContain('Warning: cloud_secret.web-cert: private_key is written as ${env:TLS_KEY_WEB_CERT} (the platform never answers it): set TLS_KEY_WEB_CERT');
    expect(text).toContain('secret_id: "${cloud_secret.web-cert.id}"');
    expect(text).toContain('load_balancer_id: "${cloud_load_balancer.web-lb.id}"');
    expect(text).toContain('listener_id: "${cloud_lb_listener.https.id}"');
    expect(text).not.toContain('PRIVATE KEY');
    // Unset, the variable is a located error naming it; set, the import plans clean.
    const unset = await runCliInProcess(['plan', file], { env: env() });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain('environment variable TLS_KEY_WEB_CERT is not set');
    const plan = await runCliInProcess(['plan', file, '--detailed-exitcode'], { env: { ...env(), TLS_KEY_WEB_CERT: TEST_TLS_KEY } });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  });

  it('imports the secrets of a region that holds nothing else of the family (client_quotas counts them), each key a placeholder named after its block', async () => {
    await seed({
      secrets: [
        { id: uuid('5c000000', 1), name: 'tls-secret' },
        { id: uuid('5c000000', 2), name: 'tls_secret' },
      ],
    });
    const imported = await runCliInProcess(['import', 'cloud_secret'], { env: env() });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`secret_id: ${uuid('5c000000', 1)}`);
    expect(imported.stdout).toContain(`secret_id: ${uuid('5c000000', 2)}`);
    // Block names leave out the credential word; the two variables stay apart.
    expect(imported.stdout).toContain('  tls:\n');
    expect(imported.stdout).toContain('private_key: "${env:TLS_KEY_TLS}"');
    expect(imported.stdout).toContain('private_key: "${env:TLS_KEY_TLS_2}"');
    expect(imported.stderr).toContain('set TLS_KEY_TLS_2');
  });

  it('refuses a secret whose name two secrets of the place share, naming both', async () => {
    await seed({
      secrets: [
        { id: uuid('5c000000', 1), name: 'dup' },
        { id: uuid('5c000000', 2), name: 'dup' },
      ],
    });
    const dir = writeStackFiles({
      'stack.yaml': `version: 1\nname: s\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n  cert: { type: cloud_secret, name: dup, certificate: "${'-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----\\n'}", certificate_chain: "${'-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----\\n'}", private_key: "\${env:TLS_KEY}" }\n`,
    });
    const plan = await runCliInProcess(['plan', join(dir, 'stack.yaml')], { env: { ...env(), TLS_KEY: TEST_TLS_KEY } });
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain(`2 cloud_secret resources match name "dup": ids ${uuid('5c000000', 1)}, ${uuid('5c000000', 2)}`);
    expect(emu.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
