import { describe, expect, it } from 'vitest';
import { cloudLbListener } from '../../../../src/kinds/cloud-lb-listener/provider.js';
import { cloudLbPool } from '../../../../src/kinds/cloud-lb-pool/provider.js';
import type { ResourceAttributes } from '../../../../src/kinds/registry.js';

const LB = 'aaaaaaaa-0000-4000-8000-000000000001';
const LISTENER = 'bbbbbbbb-0000-4000-8000-000000000001';
const POOL = 'cccccccc-0000-4000-8000-000000000001';
const listenerState = { listener_id: LISTENER, load_balancer_id: LB, name: 'web', protocol: 'HTTP', protocol_port: 80, insert_x_forwarded: false, connection_limit: 100 };
const listener = (fields: Partial<ResourceAttributes['cloud_lb_listener']>) =>
  ({ project_id: 1, region_id: 76, load_balancer_id: LB, name: 'web', protocol: 'HTTP', protocol_port: 80, ...fields }) as ResourceAttributes['cloud_lb_listener'];

describe('a listener and a pool diffed against their state (their shared child fields)', () => {
  it('changes a field in place in one PATCH body, and replaces for a create-only one', () => {
    const renamed = cloudLbListener.plan(listener({ name: 'front', connection_limit: 200 }), listenerState);
    expect(renamed.action).toBe('update');
    expect(renamed.payload).toEqual({ body: { name: 'front', connection_limit: 200 } });
    expect(renamed.changes.map((c) => [c.path[0], c.forces_replacement ?? false])).toEqual([
      ['name', false],
      ['connection_limit', false],
    ]);
    const moved = cloudLbListener.plan(listener({ protocol_port: 8080 }), listenerState);
    expect(moved.action).toBe('replace');
    expect(moved.errors).toEqual([]);
    expect(cloudLbListener.plan(listener({}), listenerState).action).toBe('no-op');
  });

  it('refuses to replace a listener or a pool adopted by its id, naming the field', () => {
    const [listenerError] = cloudLbListener.plan(listener({ listener_id: LISTENER, protocol_port: 8080 }), listenerState).errors;
    expect(listenerError).toMatchObject({ field: 'protocol_port', summary: `protocol_port of listener ${LISTENER} cannot change in place` });
    expect(listenerError!.detail).toContain('remove listener_id (the listener is found by its balancer and name)');
    const poolState = { pool_id: POOL, load_balancer_id: LB, listener_id: LISTENER, name: 'app', lb_algorithm: 'ROUND_ROBIN', protocol: 'HTTP', members: [], healthmonitor: null };
    const pool = {
      project_id: 1,
      region_id: 76,
      pool_id: POOL,
      load_balancer_id: LB,
      name: 'app',
      listener_id: 'dddddddd-0000-4000-8000-000000000001',
      lb_algorithm: 'ROUND_ROBIN',
      protocol: 'HTTP',
    } as ResourceAttributes['cloud_lb_pool'];
    const [poolError] = cloudLbPool.plan(pool, poolState).errors;
    expect(poolError).toMatchObject({ field: 'listener_id', summary: `listener_id of pool ${POOL} cannot change in place` });
  });
});
