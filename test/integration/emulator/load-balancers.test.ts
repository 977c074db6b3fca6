/**
 * The load balancer service's behaviour (src/emulator/services/load-balancers/): the busy
 * balancer's 409 while a task runs on it, provisioning and operating statuses on the emulator
 * clock, the cascade of a balancer's delete, the pool update's member list semantics, secrets
 * whose payload is never answered, tag filters and paging, refusals and fixtures.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EmulatorFixturesError, loadFixtures } from '../../../src/emulator/index.js';
import { makeCloudChain, type CloudChain } from '../../helpers/cloud-chain.js';
import { DEMO, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { LB_PATHS as P, PEM, createBalancer, createSecret, runTask } from '../../helpers/load-balancers.js';
import { expectValid, responseValidator } from '../../helpers/openapi.js';

const TASK_MS = 1000;

describe('load balancers in the emulator', () => {
  let emu: TestEmulator;
  let chain: CloudChain;
  beforeAll(async () => {
    emu = await startTestEmulator({ taskDurationMs: TASK_MS, control: true });
  });
  beforeEach(async () => {
    emu.reset();
    chain = await makeCloudChain(emu);
  });
  afterAll(() => emu.close());

  /** A balancer on the chain's subnet with an HTTP listener on port 80 and its pool `web` (members .10 and .11 on port 8080). */
  async function webBalancer(name = 'web-lb', extra: Record<string, unknown> = {}) {
    return createBalancer(emu, {
      name,
      vip_network_id: chain.network,
      listeners: [
        {
          name: 'http',
          protocol: 'HTTP',
          protocol_port: 80,
          pools: [
            {
              name: 'web',
              protocol: 'HTTP',
              lb_algorithm: 'ROUND_ROBIN',
              members: [
                { address: '10.0.0.10', protocol_port: 8080 },
                { address: '10.0.0.11', protocol_port: 8080 },
              ],
            },
          ],
        },
      ],
      ...extra,
    });
  }

  const get = async (path: string) => (await emu.call('GET', path)).body;

  it('refuses every write to a busy balancer and its children with 409 until its task has finished; another balancer proceeds', async () => {
    const a = await webBalancer('lb-a');
    const b = await createBalancer(emu, { name: 'lb-b' });
    const pool = a.created.pools![0]!;
    const started = await emu.call('POST', P.listeners, { body: { load_balancer_id: a.id, name: 'tcp', protocol: 'TCP', protocol_port: 9000 } });
    expect(started.status).toBe(200);
    const taskId = started.body.tasks[0];
    const lb = await get(`${P.balancers}/${a.id}`);
    expect(lb).toMatchObject({ provisioning_status: 'PENDING_UPDATE', task_id: taskId });
    const listener = (await get(`${P.listeners}?load_balancer_id=${a.id}&name=tcp`)).results[0];
    expect(listener).toMatchObject({ provisioning_status: 'PENDING_CREATE', operating_status: 'OFFLINE', task_id: taskId });

    const writes: Array<[string, string, unknown?]> = [
      ['POST', P.listeners, { load_balancer_id: a.id, name: 'udp', protocol: 'UDP', protocol_port: 53 }],
      ['PATCH', `${P.listenersV2}/${a.created.listeners![0]}`, { name: 'http-2' }],
      ['DELETE', `${P.listeners}/${a.created.listeners![0]}`],
      ['POST', P.pools, { name: 'other', protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN', load_balancer_id: a.id }],
      ['PATCH', `${P.poolsV2}/${pool}`, { name: 'web-2' }],
      ['DELETE', `${P.pools}/${pool}`],
      ['POST', `${P.pools}/${pool}/member`, { address: '10.0.0.12', protocol_port: 8080 }],
      ['DELETE', `${P.pools}/${pool}/member/${a.created.members![0]}`],
      ['POST', `${P.pools}/${pool}/healthmonitor`, { type: 'TCP', delay: 5, timeout: 3, max_retries: 2 }],
      ['POST', P.policies, { action: 'REJECT', listener_id: a.created.listeners![0] }],
      ['PATCH', `${P.balancersV2}/${a.id}`, { name: 'lb-a-2' }],
      ['POST', `${P.balancers}/${a.id}/resize`, { flavor: 'lb1-2-4' }],
      ['DELETE', `${P.balancers}/${a.id}`],
    ];
    for (const [method, path, body] of writes) {
      const res = await emu.call(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(res.body).toMatchObject({ exception_class: 'ConflictError' });
      expect(res.body.message).toContain(`Load Balancer ${a.id} is immutable`);
      expect(res.body.message).toContain('PENDING_UPDATE');
    }
    await runTask(emu, 'POST', P.listeners, { load_balancer_id: b.id, name: 'tcp', protocol: 'TCP', protocol_port: 9000 }, 0);

    emu.clock.advance(TASK_MS);
    expect(await get(`${P.balancers}/${a.id}`)).toMatchObject({ provisioning_status: 'ACTIVE', task_id: null });
    expect(await get(`${P.listeners}/${listener.id}`)).toMatchObject({ provisioning_status: 'ACTIVE', operating_status: 'ONLINE', task_id: null });
    await runTask(emu, 'PATCH', `${P.poolsV2}/${pool}`, { name: 'web-2' });
  });

  it('moves the statuses on the emulator clock: PENDING_CREATE and OFFLINE until the task has run its duration, then ACTIVE and ONLINE', async () => {
    const res = await emu.call('POST', P.balancers, { body: { name: 'lb-1', listeners: [{ name: 'http', protocol: 'HTTP', protocol_port: 80 }] } });
    const taskId = res.body.tasks[0];
    const id = emu.state.tasks.get(taskId)!.created_resources!.loadbalancers![0]!;
    expect(await get(`${P.balancers}/${id}`)).toMatchObject({ provisioning_status: 'PENDING_CREATE', operating_status: 'OFFLINE', task_id: taskId });
    emu.clock.advance(TASK_MS - 1);
    expect((await get(`/cloud/v1/tasks/${taskId}`)).state).toBe('RUNNING');
    expect((await get(`${P.balancers}/${id}`)).provisioning_status).toBe('PENDING_CREATE');
    emu.clock.advance(1);
    expect((await get(`/cloud/v1/tasks/${taskId}`)).state).toBe('FINISHED');
    expect(await get(`${P.balancers}/${id}`)).toMatchObject({ provisioning_status: 'ACTIVE', operating_status: 'ONLINE', task_id: null });
    expect((await get(`${P.listeners}?load_balancer_id=${id}`)).results).toMatchObject([{ provisioning_status: 'ACTIVE', operating_status: 'ONLINE' }]);
    expect(emu.mutations.filter((m) => m.kind === 'load_balancer')).toMatchObject([{ id, change: 'create_loadbalancer', taskId }]);
  });

  it('a failed task on a child removes what it made, frees the balancer and changes nothing else', async () => {
    const { id } = await createBalancer(emu, { name: 'lb-1' });
    emu.state.setNextTaskError('load_balancer', id, 'Octavia amphora failover in progress');
    const res = await emu.call('POST', P.listeners, { body: { load_balancer_id: id, name: 'http', protocol: 'HTTP', protocol_port: 80 } });
    emu.clock.advance(TASK_MS);
    expect(await get(`/cloud/v1/tasks/${res.body.tasks[0]}`)).toMatchObject({ state: 'ERROR', error: 'Octavia amphora failover in progress' });
    expect((await get(`${P.listeners}?load_balancer_id=${id}`)).count).toBe(0);
    expect(await get(`${P.balancers}/${id}`)).toMatchObject({ provisioning_status: 'ACTIVE', task_id: null, listeners: [] });
    expect(emu.mutations.filter((m) => m.kind === 'lb_listener')).toEqual([]);
    await runTask(emu, 'POST', P.listeners, { load_balancer_id: id, name: 'http', protocol: 'HTTP', protocol_port: 80 });
  });

  it("a balancer's delete takes its listeners, pools, members, monitor and L7 policies with it; its floating IP stays, free", async () => {
    const { id, created } = await webBalancer('lb-1', { floating_ip: { source: 'existing', existing_floating_id: DEMO.fipDown } });
    const listener = created.listeners![0]!;
    const pool = created.pools![0]!;
    await runTask(emu, 'POST', `${P.pools}/${pool}/healthmonitor`, { type: 'HTTP', delay: 10, timeout: 5, max_retries: 3 });
    const { created: policy } = await runTask(emu, 'POST', P.policies, { action: 'REDIRECT_PREFIX', listener_id: listener, redirect_prefix: 'https://example.com' });
    expect((await get(`/cloud/v1/floatingips/1/76/${DEMO.fipDown}`)).status).toBe('ACTIVE');

    const res = await emu.call('DELETE', `${P.balancers}/${id}`);
    expect(res.status).toBe(200);
    expect(await get(`${P.balancers}/${id}`)).toMatchObject({ provisioning_status: 'PENDING_DELETE' });
    expect(await get(`${P.listeners}/${listener}`)).toMatchObject({ provisioning_status: 'PENDING_DELETE', task_id: res.body.tasks[0] });
    expect((await get(`${P.pools}/${pool}`)).provisioning_status).toBe('PENDING_DELETE');
    emu.clock.advance(TASK_MS);
    for (const path of [`${P.balancers}/${id}`, `${P.listeners}/${listener}`, `${P.pools}/${pool}`, `${P.policies}/${policy.l7polices![0]}`]) {
      expect((await emu.call('GET', path)).status, path).toBe(404);
    }
    expect(await get(`/cloud/v1/floatingips/1/76/${DEMO.fipDown}`)).toMatchObject({ status: 'DOWN', port_id: null, fixed_ip_address: null });
    expect(emu.mutations.filter((m) => m.kind === 'load_balancer').map((m) => m.change)).toEqual(['create_loadbalancer', 'delete_loadbalancer']);
  });

  it('a pool PATCH with `members` replaces the list: members equal by address and port keep their ids (and take the new weight), the others go or come', async () => {
    const { created } = await webBalancer();
    const pool = created.pools![0]!;
    const [first, second] = created.members!;
    const members = [
      { address: '10.0.0.11', protocol_port: 8080, weight: 5 },
      { address: '10.0.0.12', protocol_port: 8080 },
    ];
    const { taskId } = await runTask(emu, 'PATCH', `${P.poolsV2}/${pool}`, { members });
    const after = (await get(`${P.pools}/${pool}`)).members;
    expect(after).toMatchObject([
      { id: second, address: '10.0.0.11', weight: 5, provisioning_status: 'ACTIVE' },
      { address: '10.0.0.12', weight: 1 },
    ]);
    expect(after.map((m: { id: string }) => m.id)).not.toContain(first);
    expect(emu.mutations.at(-1)).toMatchObject({ kind: 'lb_pool', id: pool, change: 'update_lbpool', taskId, after: { members: ['10.0.0.11:8080', '10.0.0.12:8080'] } });

    for (const same of [{ members }, { members: [...members].reverse() }, { name: 'web', lb_algorithm: 'ROUND_ROBIN' }]) {
      const res = await emu.call('PATCH', `${P.poolsV2}/${pool}`, { body: same });
      expect(res.body, JSON.stringify(same)).toEqual({ tasks: [] });
    }
    await runTask(emu, 'PATCH', `${P.poolsV2}/${pool}`, { members: [] });
    expect((await get(`${P.pools}/${pool}`)).members).toEqual([]);
  });

  it('a member named by its instance takes the subnet of the instance port holding the address; an unknown instance is refused (404)', async () => {
    const vm = await runTask(emu, 'POST', '/cloud/v2/instances/1/76', {
      name: 'web-1',
      flavor: 'g2-standard-2-4',
      volumes: [{ source: 'new-volume', size: 5, boot_index: 0 }],
      interfaces: [{ type: 'subnet', network_id: chain.network, subnet_id: chain.subnet }],
    });
    const instance = vm.created.instances![0]!;
    const address = emu.state.instances.get(instance)!.ports[0]!.ip_address;
    const { created } = await webBalancer();
    const pool = created.pools![0]!;
    await runTask(emu, 'POST', `${P.pools}/${pool}/member`, { address, protocol_port: 8080, instance_id: instance });
    expect((await get(`${P.pools}/${pool}`)).members.at(-1)).toMatchObject({ address, subnet_id: chain.subnet });
    const unknown = await emu.call('POST', `${P.pools}/${pool}/member`, {
      body: { address: '10.0.0.99', protocol_port: 8080, instance_id: 'b39792c3-3160-4356-912e-ba396c95cdcf' },
    });
    expect(unknown.status).toBe(404);
    const lb = await get(`${P.balancers}/${created.loadbalancers![0]}`);
    expect(lb.vip_address).not.toBe(address);
  });

  it("never answers a secret's payload: not in its GET, the list, its task, the state route, nor in an error about it", async () => {
    const id = await createSecret(emu);
    const task = emu.state.tasks.get([...emu.state.tasks.values()].find((t) => t.task_type === 'create_secret')!.id)!;
    for (const path of [`${P.secrets}/${id}`, P.secrets, `/cloud/v1/tasks/${task.id}`, '/__emulator/state']) {
      const res = await emu.call('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain('SecretKeyMaterial');
      expect(res.text, path).not.toContain('BEGIN PRIVATE KEY');
    }
    expect(emu.state.secrets.get(id)!.payload!.private_key).toBe(PEM.privateKey);
    const malformed = `-----BEGIN PRIVATE KEY-----\nnot base64: SecretKeyMaterial!\n-----END PRIVATE KEY-----`;
    const res = await emu.call('POST', P.secretsV2, { body: { name: 'bad', payload: { certificate: PEM.certificate, certificate_chain: PEM.chain, private_key: malformed } } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('payload.private_key: must be a private key in PEM format');
  });

  it('secrets: names may repeat (clients tell them apart by id), and one a listener uses is not deleted (409 naming the listener)', async () => {
    const secret = await createSecret(emu, 'web-cert');
    await createSecret(emu, 'web-cert');
    expect((await get(P.secrets)).results.map((s: { name: string }) => s.name)).toEqual(['web-cert', 'web-cert']);
    const { id } = await createBalancer(emu, { name: 'lb-1' });
    const { created } = await runTask(emu, 'POST', P.listeners, { load_balancer_id: id, name: 'https', protocol: 'TERMINATED_HTTPS', protocol_port: 443, secret_id: secret });
    const refused = await emu.call('DELETE', `${P.secrets}/${secret}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(`listener https (${created.listeners![0]})`);
    await runTask(emu, 'DELETE', `${P.listeners}/${created.listeners![0]}`);
    await runTask(emu, 'DELETE', `${P.secrets}/${secret}`);
    expect((await emu.call('GET', `${P.secrets}/${secret}`)).status).toBe(404);
  });

  it('lists balancers by tag_key_value and tag_key, pages them with limit and offset, orders them by order_by', async () => {
    for (const [name, tags] of [
      ['lb-c', { 'edgeform-stack': 'web', tier: 'front' }],
      ['lb-a', { 'edgeform-stack': 'web' }],
      ['lb-b', { 'edgeform-stack': 'other', tier: 'front' }],
    ] as const) {
      await createBalancer(emu, { name, tags });
      emu.clock.advance(1000);
    }
    const names = async (query: string) => (await get(`${P.balancers}?${query}`)).results.map((lb: { name: string }) => lb.name);
    expect(await names('')).toEqual(['lb-b', 'lb-a', 'lb-c']);
    expect(await names(`tag_key_value=${encodeURIComponent(JSON.stringify({ 'edgeform-stack': 'web' }))}`)).toEqual(['lb-a', 'lb-c']);
    expect(await names('tag_key=tier&order_by=name.asc')).toEqual(['lb-b', 'lb-c']);
    expect(await names('order_by=name.desc&limit=2')).toEqual(['lb-c', 'lb-b']);
    const page = await get(`${P.balancers}?order_by=name.asc&limit=2&offset=2`);
    expect(page).toMatchObject({ count: 3, results: [{ name: 'lb-c' }] });
    for (const bad of ['limit=0', 'limit=1001', 'offset=-1', 'tag_key_value=%7Bnot-json', 'order_by=size.asc', 'assigned_floating=maybe']) {
      expect((await emu.call('GET', `${P.balancers}?${bad}`)).status, bad).toBe(400);
    }
  });

  it('refuses what the platform refuses for a knowable reason', async () => {
    const secret = await createSecret(emu);
    const { id, created } = await webBalancer();
    const listener = created.listeners![0]!;
    const pool = created.pools![0]!;
    const other = await createBalancer(emu, {
      name: 'lb-2',
      listeners: [{ name: 'tcp', protocol: 'TCP', protocol_port: 80, pools: [{ name: 'tcp-pool', protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN' }] }],
    });
    const cases: Array<[number, string, string, unknown, string]> = [
      [409, 'POST', P.listeners, { load_balancer_id: id, name: 'again', protocol: 'TCP', protocol_port: 80 }, 'already using protocol_port 80'],
      [400, 'POST', P.listeners, { load_balancer_id: id, name: 'tls', protocol: 'TERMINATED_HTTPS', protocol_port: 443 }, 'needs a secret'],
      [400, 'POST', P.listeners, { load_balancer_id: id, name: 'tcp', protocol: 'TCP', protocol_port: 81, secret_id: secret }, 'only TERMINATED_HTTPS and PROMETHEUS'],
      [400, 'POST', P.listeners, { load_balancer_id: id, name: 'tcp', protocol: 'TCP', protocol_port: 81, insert_x_forwarded: true }, 'X-Forwarded'],
      [404, 'POST', P.listeners, { load_balancer_id: 'b39792c3-3160-4356-912e-ba396c95cdcf', name: 'x-1', protocol: 'TCP', protocol_port: 81 }, 'not found'],
      [400, 'POST', P.listeners, { load_balancer_id: id, name: 'x-1', protocol: 'TCP', protocol_port: 81, sni_secret_ids: [secret] }, 'Extra inputs are not permitted'],
      [409, 'POST', P.pools, { name: 'second', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN', listener_id: listener }, 'already has a pool'],
      [400, 'POST', P.pools, { name: 'udp', protocol: 'UDP', lb_algorithm: 'ROUND_ROBIN', listener_id: other.created.listeners![0] }, 'cannot serve a TCP listener'],
      [400, 'POST', P.pools, { name: 'p-1', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN' }, 'needs a listener_id or a load_balancer_id'],
      [409, 'POST', `${P.pools}/${pool}/member`, { address: '10.0.0.10', protocol_port: 8080 }, 'already using ip address 10.0.0.10'],
      [400, 'POST', `${P.pools}/${pool}/member`, { address: '10.9.0.1', protocol_port: 8080, subnet_id: chain.subnet }, 'is not in subnet'],
      [400, 'POST', `${P.pools}/${pool}/healthmonitor`, { type: 'HTTP', delay: 5, timeout: 5, max_retries: 2 }, 'less than the delay'],
      [400, 'POST', `${P.pools}/${pool}/healthmonitor`, { type: 'TCP', delay: 5, timeout: 3, max_retries: 2, url_path: '/' }, 'HTTP or HTTPS health monitor'],
      [400, 'PATCH', `${P.poolsV2}/${pool}`, { session_persistence: { type: 'APP_COOKIE' } }, 'needs a cookie name'],
      [400, 'PATCH', `${P.poolsV2}/${pool}`, { protocol: 'UDP' }, 'cannot serve a HTTP listener'],
      [400, 'PATCH', `${P.listenersV2}/${listener}`, { secret_id: secret }, 'only TERMINATED_HTTPS and PROMETHEUS'],
      [400, 'POST', P.policies, { action: 'REJECT', listener_id: other.created.listeners![0] }, 'HTTP and TERMINATED_HTTPS listeners'],
      [400, 'POST', P.policies, { action: 'REDIRECT_TO_POOL', listener_id: listener, redirect_pool_id: other.created.pools![0] }, "not on the listener's load balancer"],
      [400, 'POST', P.policies, { action: 'REDIRECT_PREFIX', listener_id: listener, redirect_prefix: 'ftp://example.com' }, 'http or https URL'],
      [400, 'POST', P.balancers, { name: 'lb-3', flavor: 'lb9-9-9' }, 'not a load balancer flavor'],
      [400, 'POST', `${P.balancers}/${id}/resize`, { flavor: 'lb1-1-2' }, 'already has flavor'],
      [404, 'POST', P.balancers, { name: 'lb-3', vip_port_id: 'b39792c3-3160-4356-912e-ba396c95cdcf' }, 'Port'],
      [404, 'POST', P.balancers, { name: 'lb-3', vip_network_id: chain.network, vip_subnet_id: 'b39792c3-3160-4356-912e-ba396c95cdcf' }, 'not found'],
      [409, 'POST', P.balancers, { name: 'lb-3', vip_network_id: chain.network, floating_ip: { source: 'existing', existing_floating_id: DEMO.fip } }, 'already associated'],
    ];
    for (const [status, method, path, body, message] of cases) {
      const res = await emu.call(method, path, { body });
      const label = `${method} ${path} ${JSON.stringify(body)}`;
      expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.message, label).toContain(message);
    }
    expect([...emu.state.loadBalancers.values()].every((lb) => lb.task_id === null)).toBe(true);
  });

  it('deleting a listener leaves its pool on the balancer unless delete_default_pool; a deleted pool turns the L7 policies that redirect to it into REJECT', async () => {
    const { id, created } = await webBalancer();
    const pool = created.pools![0]!;
    const { created: made } = await runTask(emu, 'POST', P.listeners, { load_balancer_id: id, name: 'alt', protocol: 'HTTP', protocol_port: 8080 });
    const { created: policy } = await runTask(emu, 'POST', P.policies, { action: 'REDIRECT_TO_POOL', listener_id: made.listeners![0], redirect_pool_id: pool });
    await runTask(emu, 'DELETE', `${P.listeners}/${created.listeners![0]}`);
    expect(await get(`${P.pools}/${pool}`)).toMatchObject({ listeners: [], loadbalancers: [{ id }] });
    await runTask(emu, 'DELETE', `${P.pools}/${pool}`);
    expect(await get(`${P.policies}/${policy.l7polices![0]}`)).toMatchObject({ action: 'REJECT', redirect_pool_id: null });
    const { created: again } = await runTask(emu, 'POST', P.listeners, { load_balancer_id: id, name: 'http', protocol: 'HTTP', protocol_port: 80 });
    const { created: second } = await runTask(emu, 'POST', P.pools, { name: 'web', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN', listener_id: again.listeners![0] });
    await runTask(emu, 'DELETE', `${P.listeners}/${again.listeners![0]}?delete_default_pool=true`);
    expect((await emu.call('GET', `${P.pools}/${second.pools![0]}`)).status).toBe(404);
  });

  it('places L7 policies at their position (later ones move down) and numbers them again when one goes', async () => {
    const { created } = await webBalancer();
    const listener = created.listeners![0]!;
    const ids: string[] = [];
    for (const [name, position] of [
      ['first', undefined],
      ['second', undefined],
      ['zeroth', 1],
    ] as const) {
      const { created: made } = await runTask(emu, 'POST', P.policies, { action: 'REJECT', listener_id: listener, name, ...(position ? { position } : {}) });
      ids.push(made.l7polices![0]!);
    }
    const order = async () => (await get(P.policies)).results.map((p: { name: string; position: number }) => `${p.position}:${p.name}`);
    expect(await order()).toEqual(['1:zeroth', '2:first', '3:second']);
    await runTask(emu, 'DELETE', `${P.policies}/${ids[0]}`);
    expect(await order()).toEqual(['1:zeroth', '2:second']);
  });

  it('does not serve the deprecated v1 PATCHes of balancers, listeners and pools, nor the v1 secret create (405 with Allow)', async () => {
    const { id, created } = await webBalancer();
    for (const [path, allow] of [
      [`${P.balancers}/${id}`, 'GET, DELETE'],
      [`${P.listeners}/${created.listeners![0]}`, 'GET, DELETE'],
      [`${P.pools}/${created.pools![0]}`, 'GET, DELETE'],
    ] as const) {
      const res = await emu.call('PATCH', path, { body: { name: 'renamed' } });
      expect(res.status, path).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
    }
    const res = await emu.call('POST', P.secrets, {
      body: { name: 's', payload: 'AAAA', payload_content_encoding: 'base64', payload_content_type: 'application/octet-stream', secret_type: 'opaque' },
    });
    expect(res.status).toBe(405);
    expect(emu.mutations.filter((m) => m.change === 'update_loadbalancer')).toEqual([]);
  });

  it("refuses to delete a subnet a balancer's VIP is on (409 naming the balancer) until the balancer is gone", async () => {
    const { id } = await webBalancer('lb-1', { vip_subnet_id: chain.subnet });
    const refused = await emu.call('DELETE', `/cloud/v1/subnets/1/76/${chain.subnet}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`Subnet ${chain.subnet} is in use by load balancer lb-1 (${id}): delete it before the subnet`);
    await runTask(emu, 'DELETE', `${P.balancers}/${id}`);
    await runTask(emu, 'DELETE', `/cloud/v1/subnets/1/76/${chain.subnet}`);
  });

  it('gives two balancers on one subnet distinct addresses from the top of the subnet, and the new floating IP of a create to its VIP', async () => {
    const one = await webBalancer('lb-1', { floating_ip: { source: 'new' } });
    const two = await createBalancer(emu, { name: 'lb-2', vip_network_id: chain.network, vip_subnet_id: chain.subnet });
    const [a, b] = [await get(`${P.balancers}/${one.id}`), await get(`${P.balancers}/${two.id}`)];
    expect([a.vip_address, a.vrrp_ips[0].ip_address, b.vip_address, b.vrrp_ips[0].ip_address]).toEqual(['10.0.0.254', '10.0.0.253', '10.0.0.252', '10.0.0.251']);
    expect(a.floating_ips).toMatchObject([{ id: one.created.floatingips![0], fixed_ip_address: '10.0.0.254', status: 'ACTIVE' }]);
    expect(b.floating_ips).toEqual([]);
    expect((await get(`${P.balancers}?assigned_floating=false`)).results.map((lb: { name: string }) => lb.name)).toEqual(['lb-2']);
    const external = await createBalancer(emu, { name: 'lb-3' });
    expect((await get(`${P.balancers}/${external.id}`)).vip_address).toBe('192.0.2.1');
  });
});

describe('load balancer fixtures', () => {
  const LB = '6a1f0c2e-4b7d-4e8a-9c1b-2d3e4f5a6b7c';
  const POOL = '7b2f0c2e-4b7d-4e8a-9c1b-2d3e4f5a6b7c';
  const SECRET = '8c3f0c2e-4b7d-4e8a-9c1b-2d3e4f5a6b7c';
  const world = {
    secrets: [{ id: SECRET, name: 'web-cert', expiration: '2030-01-01T00:00:00Z' }],
    load_balancers: [
      {
        id: LB,
        name: 'web-lb',
        flavor: 'lb1-2-4',
        vip_address: '192.0.2.50',
        logging: null,
        tags: { 'edgeform-stack': 'web' },
        read_only_tags: { 'managed-by': 'platform' },
        listeners: [
          {
            name: 'http',
            protocol: 'HTTP' as const,
            protocol_port: 80,
            l7_policies: [
              {
                name: 'to-https',
                action: 'REDIRECT_PREFIX' as const,
                redirect_prefix: 'https://example.com',
                rules: [{ type: 'PATH' as const, compare_type: 'STARTS_WITH' as const, value: '/' }],
              },
            ],
          },
          {
            name: 'https',
            protocol: 'TERMINATED_HTTPS' as const,
            protocol_port: 443,
            secret_id: SECRET,
            pool: {
              id: POOL,
              name: 'web',
              protocol: 'HTTP' as const,
              members: [
                { address: '10.0.0.10', protocol_port: 8080 },
                { address: '10.0.0.11', protocol_port: 8080, operating_status: 'ERROR' as const },
              ],
              healthmonitor: { type: 'HTTP' as const, delay: 10, timeout: 5, max_retries: 3 },
            },
          },
        ],
      },
    ],
  };

  it('load a balancer with its listeners, pool, members, monitor and L7 policy, answered as the platform answers them (and as its spec documents)', async () => {
    const emu = await startTestEmulator({ fixtures: world });
    try {
      const documented: Array<[string, string]> = [
        ['/cloud/v1/loadbalancers/{project_id}/{region_id}', P.balancers],
        ['/cloud/v1/lblisteners/{project_id}/{region_id}', P.listeners],
        ['/cloud/v1/lbpools/{project_id}/{region_id}', `${P.pools}?details=true`],
        ['/cloud/v1/l7policies/{project_id}/{region_id}', P.policies],
        ['/cloud/v1/secrets/{project_id}/{region_id}', P.secrets],
      ];
      for (const [template, path] of documented) expectValid(responseValidator('cloud_api.yaml', 'GET', template, 200), (await emu.call('GET', path)).body);
      const lb = (await emu.call('GET', `${P.balancers}/${LB}`)).body;
      expect(lb).toMatchObject({
        name: 'web-lb',
        provisioning_status: 'ACTIVE',
        operating_status: 'DEGRADED',
        vip_address: '192.0.2.50',
        flavor: { flavor_id: 'lb1-2-4', vcpus: 2, ram: 4096 },
      });
      expect(lb.tags_v2).toEqual([
        { key: 'edgeform-stack', value: 'web', read_only: false },
        { key: 'managed-by', value: 'platform', read_only: true },
      ]);
      const pool = (await emu.call('GET', `${P.pools}/${POOL}`)).body;
      expect(pool).toMatchObject({ operating_status: 'DEGRADED', healthmonitor: { type: 'HTTP', url_path: '/', expected_codes: '200' } });
      expect(pool.members.map((m: { operating_status: string }) => m.operating_status)).toEqual(['ONLINE', 'ERROR']);
      const policies = (await emu.call('GET', P.policies)).body.results;
      expect(policies).toMatchObject([{ name: 'to-https', position: 1, rules: [{}] }]);
      expect((await emu.call('GET', `${P.secrets}/${SECRET}`)).body).toMatchObject({ name: 'web-cert', expiration: '2030-01-01T00:00:00+00:00' });
      const refused = await emu.call('PATCH', `${P.balancersV2}/${LB}`, { body: { tags: { 'managed-by': 'me' } } });
      expect(refused.status).toBe(400);
    } finally {
      await emu.close();
    }
  });

  it('refuse an L7 policy redirecting to a pool the balancer does not have, naming the path', () => {
    const bad = structuredClone(world) as unknown as { load_balancers: Array<{ listeners: Array<{ l7_policies: Array<Record<string, unknown>> }> }> };
    bad.load_balancers[0]!.listeners[0]!.l7_policies = [{ action: 'REDIRECT_TO_POOL', redirect_pool_id: 'b39792c3-3160-4356-912e-ba396c95cdcf' }];
    expect(() => loadFixtures(bad as never)).toThrow(EmulatorFixturesError);
    expect(() => loadFixtures(bad as never)).toThrow(/load_balancers\[0\]\.listeners\[0\]\.l7_policies\[0\]\.redirect_pool_id: must be the id of a pool/);
  });
});
