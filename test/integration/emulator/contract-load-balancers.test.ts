/**
 * Contract tests of the load balancer service against the vendor OpenAPI
 * (test/fixtures/openapi/cloud_api.yaml): every answer of balancers, listeners, pools, members,
 * health monitors, L7 policies and rules, secrets and flavors matches its operation's response
 * schema (while a task runs and after), requests shaped as the vendor's request schemas are
 * served, and those the schemas reject are refused with 400.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeCloudChain, type CloudChain } from '../../helpers/cloud-chain.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { LB_PATHS as P, PEM, createBalancer, createSecret, runTask } from '../../helpers/load-balancers.js';
import { expectDocumentedAnswer, expectValid, queryChecker, requestValidator } from '../../helpers/openapi.js';

const CLOUD = 'cloud_api.yaml';
const LBS = '/cloud/v1/loadbalancers/{project_id}/{region_id}';
const LB = `${LBS}/{load_balancer_id}`;
const LB_V2 = '/cloud/v2/loadbalancers/{project_id}/{region_id}/{load_balancer_id}';
const RESIZE = `${LB}/resize`;
const LISTENERS = '/cloud/v1/lblisteners/{project_id}/{region_id}';
const LISTENER = `${LISTENERS}/{listener_id}`;
const LISTENER_V2 = '/cloud/v2/lblisteners/{project_id}/{region_id}/{listener_id}';
const POOLS = '/cloud/v1/lbpools/{project_id}/{region_id}';
const POOL = `${POOLS}/{pool_id}`;
const POOL_V2 = '/cloud/v2/lbpools/{project_id}/{region_id}/{pool_id}';
const MEMBERS = `${POOL}/member`;
const MEMBER = `${MEMBERS}/{member_id}`;
const MONITOR = `${POOL}/healthmonitor`;
const POLICIES = '/cloud/v1/l7policies/{project_id}/{region_id}';
const POLICY = `${POLICIES}/{l7policy_id}`;
const RULES = `${POLICY}/rules`;
const RULE = `${RULES}/{l7rule_id}`;
const SECRETS = '/cloud/v1/secrets/{project_id}/{region_id}';
const SECRETS_V2 = '/cloud/v2/secrets/{project_id}/{region_id}';
const SECRET = `${SECRETS}/{secret_id}`;
const FLAVORS = '/cloud/v1/lbflavors/{project_id}/{region_id}';
const TASK = '/cloud/v1/tasks/{task_id}';

let chain: CloudChain = { network: '', subnet: '', group: '', volume: '', key: '' };

/** A balancer with everything a create takes inline: a VIP on the chain's subnet, a new floating IP, logging, tags, an HTTP listener with its pool, members and monitor. */
const fullCreate = () => ({
  name: 'web-lb',
  flavor: 'lb1-2-4',
  vip_network_id: chain.network,
  vip_subnet_id: chain.subnet,
  vip_ip_family: 'ipv4',
  floating_ip: { source: 'new' },
  preferred_connectivity: 'L2',
  logging: { enabled: true, destination_region_id: 76, topic_name: 'lb-logs', retention_policy: { period: 45 } },
  tags: { 'edgeform-stack': 'web', env: 'prod' },
  listeners: [
    {
      name: 'http',
      protocol: 'HTTP',
      protocol_port: 80,
      allowed_cidrs: ['10.0.0.0/8'],
      connection_limit: -1,
      insert_x_forwarded: true,
      timeout_client_data: 60000,
      user_list: [{ username: 'admin', encrypted_password: '$5$isRr.HJ1IrQP38.m$oViu3DJOpUG2' }],
      pools: [
        {
          name: 'web',
          protocol: 'HTTP',
          lb_algorithm: 'ROUND_ROBIN',
          session_persistence: { type: 'APP_COOKIE', cookie_name: 'sid' },
          timeout_member_connect: 5000,
          members: [
            { address: '10.0.0.10', protocol_port: 8080, subnet_id: chain.subnet, weight: 2 },
            { address: '10.0.0.11', protocol_port: 8080, subnet_id: chain.subnet, backup: true, monitor_port: 8081 },
          ],
          healthmonitor: { type: 'HTTP', delay: 10, timeout: 5, max_retries: 3, url_path: '/healthz', expected_codes: '200,301-302', http_method: 'GET' },
        },
      ],
    },
  ],
});

describe('load balancers: the emulator against the vendor OpenAPI', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ taskDurationMs: 1000 });
  });
  beforeEach(async () => {
    emu.reset();
    chain = await makeCloudChain(emu);
  });
  afterAll(() => emu.close());

  it('balancer create (every inline part), GET while PENDING_CREATE and after, the list with its filters and the task answer as the spec says', async () => {
    expectValid(requestValidator(CLOUD, 'POST', LBS), fullCreate());
    const created = await expectDocumentedAnswer(emu, CLOUD, 'POST', LBS, P.balancers, 200, fullCreate());
    const task = emu.state.tasks.get(created.tasks[0])!;
    const id = task.created_resources!.loadbalancers![0]!;
    const pending = await expectDocumentedAnswer(emu, CLOUD, 'GET', LB, `${P.balancers}/${id}`, 200);
    expect(pending).toMatchObject({ provisioning_status: 'PENDING_CREATE', operating_status: 'OFFLINE', task_id: created.tasks[0] });
    await expectDocumentedAnswer(emu, CLOUD, 'GET', LISTENERS, `${P.listeners}?load_balancer_id=${id}`, 200);
    await expectDocumentedAnswer(emu, CLOUD, 'GET', POOLS, `${P.pools}?load_balancer_id=${id}&details=true`, 200);
    emu.clock.advance(1000);
    const done = await expectDocumentedAnswer(emu, CLOUD, 'GET', TASK, `/cloud/v1/tasks/${created.tasks[0]}`, 200);
    expect(Object.keys(done.created_resources).sort()).toEqual(['floatingips', 'healthmonitors', 'listeners', 'loadbalancers', 'members', 'pools']);
    const one = await expectDocumentedAnswer(emu, CLOUD, 'GET', LB, `${P.balancers}/${id}?show_stats=true&with_ddos=false`, 200);
    expect(one).toMatchObject({ provisioning_status: 'ACTIVE', operating_status: 'ONLINE', task_id: null, flavor: { flavor_name: 'lb1-2-4' } });
    expect(one.vrrp_ips).toEqual([{ ip_address: '10.0.0.253', role: 'STANDALONE', subnet_id: chain.subnet }]);
    expect(one.vip_address).toBe('10.0.0.254');
    expect(one.floating_ips).toHaveLength(1);
    expect(one.tags_v2).toEqual([
      { key: 'edgeform-stack', value: 'web', read_only: false },
      { key: 'env', value: 'prod', read_only: false },
    ]);
    const filter = JSON.stringify({ 'edgeform-stack': 'web' });
    const query = `tag_key_value=${encodeURIComponent(filter)}&tag_key=env&assigned_floating=true&logging_enabled=true&order_by=name.asc&show_stats=true&limit=10&offset=0`;
    expect(queryChecker(CLOUD, 'GET', LBS)(new URLSearchParams(query))).toEqual([]);
    const listed = await expectDocumentedAnswer(emu, CLOUD, 'GET', LBS, `${P.balancers}?${query}`, 200);
    expect(listed.results.map((lb: { id: string }) => lb.id)).toEqual([id]);
    const listener = await expectDocumentedAnswer(emu, CLOUD, 'GET', LISTENER, `${P.listeners}/${done.created_resources.listeners[0]}?show_stats=true`, 200);
    expect(listener).toMatchObject({ connection_limit: 100000, insert_headers: { 'X-Forwarded-For': 'true' }, pool_count: 1 });
    await expectDocumentedAnswer(emu, CLOUD, 'GET', POOLS, `${P.pools}?load_balancer_id=${id}`, 200);
    const pool = await expectDocumentedAnswer(emu, CLOUD, 'GET', POOL, `${P.pools}/${done.created_resources.pools[0]}`, 200);
    expect(pool.healthmonitor).toMatchObject({ type: 'HTTP', url_path: '/healthz', http_version: '1.0', max_retries_down: 3 });
    expect(pool.members.map((m: { operating_status: string }) => m.operating_status)).toEqual(['ONLINE', 'ONLINE']);
  });

  it('balancer PATCH v2, resize and DELETE answer TaskIDsSerializer, and the flavors list LbFlavorCollectionSerializer', async () => {
    const { id } = await createBalancer(emu, { name: 'lb-1', tags: { env: 'a' } });
    const patch = { name: 'lb-2', tags: { env: null, team: 'edge' }, logging: { enabled: false }, preferred_connectivity: 'L3', admin_state_up: true };
    expectValid(requestValidator(CLOUD, 'PATCH', LB_V2), patch);
    await expectDocumentedAnswer(emu, CLOUD, 'PATCH', LB_V2, `${P.balancersV2}/${id}`, 200, patch);
    emu.clock.advance(1000);
    expect(await expectDocumentedAnswer(emu, CLOUD, 'GET', LB, `${P.balancers}/${id}`, 200)).toMatchObject({ name: 'lb-2', preferred_connectivity: 'L3' });
    expectValid(requestValidator(CLOUD, 'POST', RESIZE), { flavor: 'lb1-4-8' });
    await expectDocumentedAnswer(emu, CLOUD, 'POST', RESIZE, `${P.balancers}/${id}/resize`, 200, { flavor: 'lb1-4-8' });
    expect((await expectDocumentedAnswer(emu, CLOUD, 'GET', LB, `${P.balancers}/${id}`, 200)).provisioning_status).toBe('PENDING_UPDATE');
    emu.clock.advance(1000);
    const flavors = await expectDocumentedAnswer(emu, CLOUD, 'GET', FLAVORS, `${P.flavors}?include_prices=true&limit=100&offset=0`, 200);
    expect(flavors.results.map((f: { flavor_name: string }) => f.flavor_name)).toEqual(['lb1-1-2', 'lb1-2-4', 'lb1-4-8', 'lb1-8-16']);
    await expectDocumentedAnswer(emu, CLOUD, 'GET', FLAVORS, P.flavors, 200);
    await expectDocumentedAnswer(emu, CLOUD, 'DELETE', LB, `${P.balancers}/${id}`, 200);
    expect((await expectDocumentedAnswer(emu, CLOUD, 'GET', LB, `${P.balancers}/${id}`, 200)).provisioning_status).toBe('PENDING_DELETE');
    emu.clock.advance(1000);
    expect((await emu.call('GET', `${P.balancers}/${id}`)).status).toBe(404);
  });

  it('listener create (TERMINATED_HTTPS with secrets), GET while PENDING_CREATE, PATCH v2 and DELETE answer as the spec says', async () => {
    const secret = await createSecret(emu);
    const sni = await createSecret(emu, 'sni-cert');
    const { id: lb } = await createBalancer(emu, { name: 'lb-1' });
    const body = {
      load_balancer_id: lb,
      name: 'https',
      protocol: 'TERMINATED_HTTPS',
      protocol_port: 443,
      secret_id: secret,
      sni_secret_id: [sni],
      insert_x_forwarded: true,
      timeout_client_data: null,
      allowed_cidrs: null,
    };
    expectValid(requestValidator(CLOUD, 'POST', LISTENERS), body);
    const created = await expectDocumentedAnswer(emu, CLOUD, 'POST', LISTENERS, P.listeners, 200, body);
    const id = emu.state.tasks.get(created.tasks[0])!.created_resources!.listeners![0]!;
    const pending = await expectDocumentedAnswer(emu, CLOUD, 'GET', LISTENER, `${P.listeners}/${id}`, 200);
    expect(pending).toMatchObject({ provisioning_status: 'PENDING_CREATE', task_id: created.tasks[0], timeout_client_data: 50000 });
    emu.clock.advance(1000);
    const patch = {
      name: 'https-2',
      allowed_cidrs: ['192.0.2.0/24'],
      connection_limit: 500,
      sni_secret_id: null,
      timeout_member_data: 1000,
      user_list: null,
      admin_state_up: true,
    };
    expectValid(requestValidator(CLOUD, 'PATCH', LISTENER_V2), patch);
    await expectDocumentedAnswer(emu, CLOUD, 'PATCH', LISTENER_V2, `${P.listenersV2}/${id}`, 200, patch);
    expect((await expectDocumentedAnswer(emu, CLOUD, 'GET', LISTENER, `${P.listeners}/${id}`, 200)).provisioning_status).toBe('PENDING_UPDATE');
    emu.clock.advance(1000);
    expect(await expectDocumentedAnswer(emu, CLOUD, 'GET', LISTENER, `${P.listeners}/${id}`, 200)).toMatchObject({ name: 'https-2', sni_secret_id: [], connection_limit: 500 });
    await expectDocumentedAnswer(emu, CLOUD, 'DELETE', LISTENER, `${P.listeners}/${id}?delete_default_pool=true`, 200);
    emu.clock.advance(1000);
    expect((await emu.call('GET', `${P.listeners}/${id}`)).status).toBe(404);
  });

  it('pool create, PATCH v2, member add and delete, monitor create and delete (204), and pool DELETE answer as the spec says', async () => {
    const { id: lb, created } = await createBalancer(emu, { name: 'lb-1', vip_network_id: chain.network, listeners: [{ name: 'tcp', protocol: 'TCP', protocol_port: 5000 }] });
    const body = {
      name: 'tcp-pool',
      protocol: 'TCP',
      lb_algorithm: 'LEAST_CONNECTIONS',
      listener_id: created.listeners![0],
      load_balancer_id: lb,
      members: [{ address: '10.0.0.20', protocol_port: 5000, instance_id: null, subnet_id: chain.subnet }],
      healthmonitor: { type: 'TCP', delay: 5, timeout: 3, max_retries: 2 },
      secret_id: null,
      session_persistence: null,
    };
    expectValid(requestValidator(CLOUD, 'POST', POOLS), body);
    const made = await expectDocumentedAnswer(emu, CLOUD, 'POST', POOLS, P.pools, 200, body);
    const id = emu.state.tasks.get(made.tasks[0])!.created_resources!.pools![0]!;
    expect((await expectDocumentedAnswer(emu, CLOUD, 'GET', POOL, `${P.pools}/${id}`, 200)).provisioning_status).toBe('PENDING_CREATE');
    emu.clock.advance(1000);
    const patch = {
      name: 'tcp-pool-2',
      lb_algorithm: 'ROUND_ROBIN',
      members: [{ address: '10.0.0.21', protocol_port: 5000, weight: 3 }],
      healthmonitor: { delay: 10, timeout: 4, max_retries: 3 },
      timeout_client_data: null,
    };
    expectValid(requestValidator(CLOUD, 'PATCH', POOL_V2), patch);
    await expectDocumentedAnswer(emu, CLOUD, 'PATCH', POOL_V2, `${P.poolsV2}/${id}`, 200, patch);
    emu.clock.advance(1000);
    const member = { address: '10.0.0.22', protocol_port: 5000, admin_state_up: false };
    expectValid(requestValidator(CLOUD, 'POST', MEMBERS), member);
    const added = await expectDocumentedAnswer(emu, CLOUD, 'POST', MEMBERS, `${P.pools}/${id}/member`, 200, member);
    const memberId = emu.state.tasks.get(added.tasks[0])!.created_resources!.members![0]!;
    expect((await expectDocumentedAnswer(emu, CLOUD, 'GET', POOL, `${P.pools}/${id}`, 200)).members.at(-1)).toMatchObject({ id: memberId, provisioning_status: 'PENDING_CREATE' });
    emu.clock.advance(1000);
    expect((await expectDocumentedAnswer(emu, CLOUD, 'GET', POOL, `${P.pools}/${id}`, 200)).members.at(-1)).toMatchObject({ operating_status: 'OFFLINE' });
    await expectDocumentedAnswer(emu, CLOUD, 'DELETE', MEMBER, `${P.pools}/${id}/member/${memberId}`, 200);
    emu.clock.advance(1000);
    const deleted = await emu.call('DELETE', `${P.pools}/${id}/healthmonitor`);
    expect(deleted.status).toBe(204);
    const monitor = { type: 'HTTP', delay: 10, timeout: 5, max_retries: 3, max_retries_down: 2, http_version: '1.1', domain_name: 'example.com', admin_state_up: true };
    expectValid(requestValidator(CLOUD, 'POST', MONITOR), monitor);
    await expectDocumentedAnswer(emu, CLOUD, 'POST', MONITOR, `${P.pools}/${id}/healthmonitor`, 200, monitor);
    emu.clock.advance(1000);
    const pool = await expectDocumentedAnswer(emu, CLOUD, 'GET', POOL, `${P.pools}/${id}`, 200);
    expect(pool).toMatchObject({ name: 'tcp-pool-2', healthmonitor: { type: 'HTTP', domain_name: 'example.com' }, members: [{ address: '10.0.0.21', weight: 3 }] });
    await expectDocumentedAnswer(emu, CLOUD, 'DELETE', POOL, `${P.pools}/${id}`, 200);
    emu.clock.advance(1000);
    expect((await emu.call('GET', `${P.pools}/${id}`)).status).toBe(404);
  });

  it('an HTTP → HTTPS redirect (a REDIRECT_PREFIX policy with a PATH rule): policy and rule create, list, GET, PATCH, PUT and DELETE answer as the spec says', async () => {
    const { created } = await createBalancer(emu, { name: 'lb-1', listeners: [{ name: 'http', protocol: 'HTTP', protocol_port: 80 }] });
    const policy = {
      action: 'REDIRECT_PREFIX',
      listener_id: created.listeners![0],
      name: 'to-https',
      redirect_prefix: 'https://www.example.com',
      redirect_http_code: 301,
      tags: ['edge'],
    };
    expectValid(requestValidator(CLOUD, 'POST', POLICIES), policy);
    const made = await expectDocumentedAnswer(emu, CLOUD, 'POST', POLICIES, P.policies, 200, policy);
    const id = emu.state.tasks.get(made.tasks[0])!.created_resources!.l7polices![0]!;
    expect(await expectDocumentedAnswer(emu, CLOUD, 'GET', POLICY, `${P.policies}/${id}`, 200)).toMatchObject({ provisioning_status: 'PENDING_CREATE', position: 1 });
    emu.clock.advance(1000);
    const rule = { type: 'PATH', compare_type: 'STARTS_WITH', value: '/', invert: false };
    expectValid(requestValidator(CLOUD, 'POST', RULES), rule);
    const ruleTask = await expectDocumentedAnswer(emu, CLOUD, 'POST', RULES, `${P.policies}/${id}/rules`, 200, rule);
    const ruleId = emu.state.tasks.get(ruleTask.tasks[0])!.created_resources!.l7rules![0]!;
    emu.clock.advance(1000);
    const rules = await expectDocumentedAnswer(emu, CLOUD, 'GET', RULES, `${P.policies}/${id}/rules?limit=10&offset=0`, 200);
    expect(rules.results).toMatchObject([{ id: ruleId, type: 'PATH', compare_type: 'STARTS_WITH', value: '/', key: null }]);
    await expectDocumentedAnswer(emu, CLOUD, 'GET', RULE, `${P.policies}/${id}/rules/${ruleId}`, 200);
    expectValid(requestValidator(CLOUD, 'PUT', RULE), { value: '/app' });
    await expectDocumentedAnswer(emu, CLOUD, 'PUT', RULE, `${P.policies}/${id}/rules/${ruleId}`, 200, { value: '/app' });
    emu.clock.advance(1000);
    const listed = await expectDocumentedAnswer(emu, CLOUD, 'GET', POLICIES, P.policies, 200);
    expect(listed.results).toMatchObject([{ id, action: 'REDIRECT_PREFIX', redirect_prefix: 'https://www.example.com', redirect_http_code: 301, rules: [{ id: ruleId }] }]);
    const update = { action: 'REDIRECT_TO_URL', redirect_url: 'https://www.example.com/', name: 'to-https-2' };
    expectValid(requestValidator(CLOUD, 'PATCH', POLICY), update);
    await expectDocumentedAnswer(emu, CLOUD, 'PATCH', POLICY, `${P.policies}/${id}`, 200, update);
    emu.clock.advance(1000);
    expect(await expectDocumentedAnswer(emu, CLOUD, 'GET', POLICY, `${P.policies}/${id}`, 200)).toMatchObject({
      action: 'REDIRECT_TO_URL',
      redirect_prefix: null,
      redirect_url: 'https://www.example.com/',
      redirect_http_code: 301,
    });
    await expectDocumentedAnswer(emu, CLOUD, 'DELETE', RULE, `${P.policies}/${id}/rules/${ruleId}`, 200);
    emu.clock.advance(1000);
    await expectDocumentedAnswer(emu, CLOUD, 'DELETE', POLICY, `${P.policies}/${id}`, 200);
    emu.clock.advance(1000);
    expect((await emu.call('GET', `${P.policies}/${id}`)).status).toBe(404);
  });

  it('secret create (v2), list, GET and DELETE answer as the spec says, and no answer carries the payload', async () => {
    const body = {
      name: 'web-cert',
      payload: { certificate: PEM.certificate, certificate_chain: PEM.chain, private_key: PEM.privateKey },
      expiration: '2030-01-01T00:00:00+00:00',
    };
    expectValid(requestValidator(CLOUD, 'POST', SECRETS_V2), body);
    const made = await expectDocumentedAnswer(emu, CLOUD, 'POST', SECRETS_V2, P.secretsV2, 200, body);
    emu.clock.advance(1000);
    const task = await expectDocumentedAnswer(emu, CLOUD, 'GET', TASK, `/cloud/v1/tasks/${made.tasks[0]}`, 200);
    const id = task.created_resources.secrets[0];
    const one = await expectDocumentedAnswer(emu, CLOUD, 'GET', SECRET, `${P.secrets}/${id}`, 200);
    expect(one).toMatchObject({ name: 'web-cert', secret_type: 'certificate', status: 'ACTIVE', expiration: '2030-01-01T00:00:00+00:00' });
    const listed = await expectDocumentedAnswer(emu, CLOUD, 'GET', SECRETS, `${P.secrets}?limit=1000&offset=0`, 200);
    for (const text of [JSON.stringify(one), JSON.stringify(listed), JSON.stringify(task)]) expect(text).not.toContain('SecretKeyMaterial');
    await expectDocumentedAnswer(emu, CLOUD, 'DELETE', SECRET, `${P.secrets}/${id}`, 200);
    emu.clock.advance(1000);
    expect((await emu.call('GET', `${P.secrets}/${id}`)).status).toBe(404);
  });

  it('a balancer on the external network with an existing floating IP is refused; on a network it takes it', async () => {
    const external = { name: 'lb-1', floating_ip: { source: 'existing', existing_floating_id: DEMO.fipDown } };
    expectValid(requestValidator(CLOUD, 'POST', LBS), external);
    expect((await emu.call('POST', P.balancers, { body: external })).status).toBe(400);
    const { id } = await createBalancer(emu, { ...external, vip_network_id: chain.network });
    const lb = await expectDocumentedAnswer(emu, CLOUD, 'GET', LB, `${P.balancers}/${id}`, 200);
    expect(lb.floating_ips.map((f: { id: string }) => f.id)).toEqual([DEMO.fipDown]);
  });

  const lb = 'b39792c3-3160-4356-912e-ba396c95cdcf';
  const rejected: Array<{ name: string; path: string; method: string; template: string; body: unknown }> = [
    { name: 'a balancer without a name', method: 'POST', path: P.balancers, template: LBS, body: {} },
    { name: 'a balancer named with a slash', method: 'POST', path: P.balancers, template: LBS, body: { name: 'a/b' } },
    { name: 'a listener port of 0', method: 'POST', path: P.balancers, template: LBS, body: { name: 'lb-1', listeners: [{ name: 'l-1', protocol: 'HTTP', protocol_port: 0 }] } },
    {
      name: 'a listener of protocol FTP',
      method: 'POST',
      path: P.balancers,
      template: LBS,
      body: { name: 'lb-1', listeners: [{ name: 'l-1', protocol: 'FTP', protocol_port: 21 }] },
    },
    {
      name: 'a member weight of 0',
      method: 'POST',
      path: P.balancers,
      template: LBS,
      body: {
        name: 'lb-1',
        listeners: [
          {
            name: 'l-1',
            protocol: 'HTTP',
            protocol_port: 80,
            pools: [{ name: 'p-1', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN', members: [{ address: '10.0.0.1', protocol_port: 80, weight: 0 }] }],
          },
        ],
      },
    },
    {
      name: 'a balancer whose logging retention is 0 days',
      method: 'POST',
      path: P.balancers,
      template: LBS,
      body: { name: 'lb-1', logging: { retention_policy: { period: 0 } } },
    },
    { name: 'a listener without load_balancer_id', method: 'POST', path: P.listeners, template: LISTENERS, body: { name: 'l-1', protocol: 'HTTP', protocol_port: 80 } },
    {
      name: 'a listener with four users',
      method: 'POST',
      path: P.listeners,
      template: LISTENERS,
      body: { load_balancer_id: lb, name: 'l-1', protocol: 'HTTP', protocol_port: 80, user_list: [1, 2, 3, 4].map((n) => ({ username: `user${n}`, encrypted_password: 'x' })) },
    },
    { name: 'a pool without lb_algorithm', method: 'POST', path: P.pools, template: POOLS, body: { name: 'p-1', protocol: 'HTTP', load_balancer_id: lb } },
    { name: 'a pool of algorithm RANDOM', method: 'POST', path: P.pools, template: POOLS, body: { name: 'p-1', protocol: 'HTTP', lb_algorithm: 'RANDOM', load_balancer_id: lb } },
    {
      name: 'a monitor with 11 retries',
      method: 'POST',
      path: P.pools,
      template: POOLS,
      body: { name: 'p-1', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN', load_balancer_id: lb, healthmonitor: { type: 'HTTP', delay: 10, timeout: 5, max_retries: 11 } },
    },
    { name: 'an L7 policy of action DROP', method: 'POST', path: P.policies, template: POLICIES, body: { action: 'DROP', listener_id: lb } },
    { name: 'an L7 redirect without its URL', method: 'POST', path: P.policies, template: POLICIES, body: { action: 'REDIRECT_TO_URL', listener_id: lb } },
    {
      name: 'a secret without its private key',
      method: 'POST',
      path: P.secretsV2,
      template: SECRETS_V2,
      body: { name: 's', payload: { certificate: PEM.certificate, certificate_chain: PEM.chain } },
    },
    {
      name: 'a secret without a name',
      method: 'POST',
      path: P.secretsV2,
      template: SECRETS_V2,
      body: { payload: { certificate: PEM.certificate, certificate_chain: PEM.chain, private_key: PEM.privateKey } },
    },
  ];

  it.each(rejected)('rejects what the vendor schema rejects: $name', async ({ method, path, template, body }) => {
    expect(requestValidator(CLOUD, method, template)(body)).toBe(false);
    const res = await emu.call(method, path, { body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ exception_class: 'ValidationError', request_id: expect.any(String) });
  });

  it('rejects PATCH bodies the vendor schemas reject (400) on a live balancer, listener and pool', async () => {
    const { id, created } = await createBalancer(emu, {
      name: 'lb-1',
      listeners: [{ name: 'http', protocol: 'HTTP', protocol_port: 80, pools: [{ name: 'web', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN' }] }],
    });
    const cases: Array<[string, string, string, unknown]> = [
      [LB_V2, `${P.balancersV2}/${id}`, 'PATCH', { preferred_connectivity: 'L4' }],
      [LB_V2, `${P.balancersV2}/${id}`, 'PATCH', { name: '' }],
      [LISTENER_V2, `${P.listenersV2}/${created.listeners![0]}`, 'PATCH', { connection_limit: -2 }],
      [POOL_V2, `${P.poolsV2}/${created.pools![0]}`, 'PATCH', { members: [{ address: 'not-an-ip', protocol_port: 80 }] }],
      [POOL_V2, `${P.poolsV2}/${created.pools![0]}`, 'PATCH', { healthmonitor: { delay: 10 } }],
      [RESIZE, `${P.balancers}/${id}/resize`, 'POST', {}],
    ];
    for (const [template, path, method, body] of cases) {
      expect(requestValidator(CLOUD, method, template)(body), JSON.stringify(body)).toBe(false);
      expect((await emu.call(method, path, { body })).status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
    }
  });

  it('serves every operation it documents above with the request shapes of the vendor SDK examples', async () => {
    // The spec's own examples: a TCP listener, a pool with one member, an L7 REDIRECT_TO_URL policy.
    const { id } = await createBalancer(emu, { name: 'lbaas_test_lb' });
    const { created } = await runTask(emu, 'POST', P.listeners, { load_balancer_id: id, name: 'my_listener', protocol: 'HTTP', protocol_port: 80 });
    await runTask(emu, 'POST', P.pools, { name: 'lbaas_test_pool', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN', listener_id: created.listeners![0] });
    await runTask(emu, 'POST', P.policies, { action: 'REDIRECT_TO_URL', listener_id: created.listeners![0], redirect_url: 'https://www.example.com' });
  });
});
