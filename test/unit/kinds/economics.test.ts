import { describe, expect, it } from 'vitest';
import { floatingIpEconomics } from '../../../src/kinds/cloud-floating-ip/economics.js';
import { instanceEconomics } from '../../../src/kinds/cloud-instance/economics.js';
import { loadBalancerEconomics } from '../../../src/kinds/cloud-load-balancer/economics.js';
import { volumeEconomics } from '../../../src/kinds/cloud-volume/economics.js';
import type { ResourceChange } from '../../../src/plan/types.js';

const change = <T extends ResourceChange['type']>(type: T, action: ResourceChange['action'], desired: Record<string, unknown>, before: Record<string, unknown> | null = null) =>
  ({
    address: `${type}.x`,
    name: 'x',
    type,
    action,
    desired: { project_id: 1, region_id: 76, ...desired },
    before,
    after: null,
    changes: [],
    fingerprint: '',
    lock_task_id: null,
    depends_on: [],
    warnings: [],
    notes: [],
  }) as unknown as ResourceChange<T>;

describe('kind economics: quota demands and pricing requests from the change alone', () => {
  it('asks check_limits for an instance create with the boot volume it makes from an image, never the volumes of their own blocks', () => {
    const own = instanceEconomics.checkLimits!(change('cloud_instance', 'create', { flavor_id: 'g2-standard-2-4', name: 'web', boot_volume_id: 'v', volume_ids: ['w'] }));
    expect(own?.body).toEqual({ flavor: 'g2-standard-2-4', names: ['web'], interfaces: [], volumes: [] });
    const fromImage = instanceEconomics.checkLimits!(change('cloud_instance', 'create', { flavor_id: 'g2-standard-2-4', image_id: 'i', boot_volume_size: 20 }));
    expect(fromImage?.body.volumes).toEqual([{ source: 'image', size: 20, type_name: 'standard' }]);
    expect(fromImage?.path).toBe('/cloud/v2/instances/1/76/check_limits');
    expect(instanceEconomics.checkLimits!(change('cloud_instance', 'update', { flavor_id: 'g2-standard-2-4' }))).toBeUndefined();
  });

  it('prices a resize as the current price against the new flavor', () => {
    const ask = instanceEconomics.price!(
      change('cloud_instance', 'update', { flavor_id: 'g2-standard-4-8', instance_id: 'abc' }, { flavor_id: 'g2-standard-2-4', instance_id: 'abc' }),
    );
    expect(ask?.before).toEqual({ method: 'GET', path: '/cloud/v1/pricing/1/76/instances/abc', answer: 'item' });
    expect(ask?.after).toMatchObject({ method: 'POST', path: '/cloud/v2/pricing/1/76/instances', body: { flavor: 'g2-standard-4-8', interfaces: [] } });
    // A rename is no price change.
    expect(instanceEconomics.price!(change('cloud_instance', 'update', { flavor_id: 'a', name: 'n' }, { flavor_id: 'a', name: 'm' }))).toBeUndefined();
  });

  it('counts a volume extend as its growth, and a create as one volume and its size', () => {
    expect(volumeEconomics.quota!(change('cloud_volume', 'update', { size: 50 }, { size: 10 }))).toEqual([
      { address: 'cloud_volume.x', scope: 76, counter: 'volume_size', amount: 40 },
    ]);
    expect(volumeEconomics.quota!(change('cloud_volume', 'create', { size: 5 })).map((d) => [d.counter, d.amount])).toEqual([
      ['volume_count', 1],
      ['volume_size', 5],
    ]);
    // A size only known after apply (a reference) counts the volume, not a size.
    expect(volumeEconomics.quota!(change('cloud_volume', 'create', { size: '(known after apply)' })).map((d) => d.amount)).toEqual([1, 0]);
  });

  it('batches floating IP creates by place, and prices nothing for a tags update', () => {
    expect(floatingIpEconomics.price!(change('cloud_floating_ip', 'create', {}))?.after?.batch).toEqual({ key: 'floating_ips 1/76' });
    expect(floatingIpEconomics.price!(change('cloud_floating_ip', 'update', {}))).toBeUndefined();
    expect(floatingIpEconomics.quota!(change('cloud_floating_ip', 'delete', {}))).toEqual([]);
  });

  it('counts a balancer create as one loadbalancer_count, and asks its check_limits with the VIP it knows', () => {
    const net = '00000000-0000-4000-8000-000000000001';
    expect(loadBalancerEconomics.quota!(change('cloud_load_balancer', 'create', { flavor: 'lb1-1-2' }))).toEqual([
      { address: 'cloud_load_balancer.x', scope: 76, counter: 'loadbalancer_count', amount: 1 },
    ]);
    expect(loadBalancerEconomics.quota!(change('cloud_load_balancer', 'update', { flavor: 'lb1-2-4' }, { flavor: 'lb1-1-2' }))).toEqual([]);
    const check = loadBalancerEconomics.checkLimits!(change('cloud_load_balancer', 'create', { vip_network_id: net, vip_ip_family: 'ipv4', floating_ip_id: 'f' }));
    expect(check).toMatchObject({ path: '/cloud/v1/loadbalancers/1/76/check_limits', body: { vip_network_id: net, vip_ip_family: 'ipv4' } });
    // The floating IP of its own block is counted by that block.
    expect(check?.body).not.toHaveProperty('floating_ip');
    // A VIP on a network the plan creates: no id to send (the count is held against client_quotas).
    expect(loadBalancerEconomics.checkLimits!(change('cloud_load_balancer', 'create', { vip_network_id: '(known after apply)' }))).toBeUndefined();
  });

  it('prices a balancer create by the v2 preview, its external IP left out for a VIP on a network the plan creates, and a resize before and after', () => {
    const created = loadBalancerEconomics.price!(change('cloud_load_balancer', 'create', { flavor: 'lb1-1-2', vip_network_id: '(known after apply)', floating_ip_id: 'f' }));
    expect(created).toEqual({
      after: { method: 'POST', path: '/cloud/v2/pricing/1/76/loadbalancers', body: { flavor: 'lb1-1-2' }, answer: 'loadbalancer', withoutExternalIp: true },
    });
    const external = loadBalancerEconomics.price!(change('cloud_load_balancer', 'create', { flavor: 'lb1-1-2' }));
    expect(external?.after).not.toHaveProperty('withoutExternalIp');
    const resize = loadBalancerEconomics.price!(change('cloud_load_balancer', 'update', { flavor: 'lb1-2-4' }, { flavor: 'lb1-1-2' }));
    expect([resize?.before?.body, resize?.after?.body]).toEqual([{ flavor: 'lb1-1-2' }, { flavor: 'lb1-2-4' }]);
    // A rename is no price change.
    expect(loadBalancerEconomics.price!(change('cloud_load_balancer', 'update', { flavor: 'lb1-1-2', name: 'n' }, { flavor: 'lb1-1-2', name: 'm' }))).toBeUndefined();
  });
});
