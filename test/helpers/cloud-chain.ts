import { expect } from 'vitest';
import type { TestEmulator } from './emulator.js';

/** An OpenSSH public key line (Ed25519) the emulator's key pairs accept. */
export const CHAIN_PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILGCMcs7ZtF7TfYiAv0HJvqzMsyVFPkV6e8MLCALgTbj ops@example';

/** What an instance can be made of, made in the emulator: a network and its subnet, a security group, a volume, a key pair. */
export interface CloudChain {
  network: string;
  subnet: string;
  group: string;
  volume: string;
  /** The key pair's name (an instance names it so). */
  key: string;
}

/**
 * Makes a network (`net`), its subnet (10.0.0.0/24), a security group (`web`), a 5 GiB volume and a
 * key pair (`demo-key`) in project 1, region 76 through the emulator's API, as another tool
 * would, and lets their tasks finish (the clock moves a minute).
 */
export async function makeCloudChain(emu: TestEmulator): Promise<CloudChain> {
  const post = async (path: string, body: unknown) => {
    const res = await emu.call('POST', path, { body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body as { tasks?: string[] };
  };
  const created = (taskId: string | undefined, key: string) => {
    emu.clock.advance(60_000);
    const ids = emu.state.tasks.get(taskId ?? '')?.created_resources?.[key];
    expect(ids, `${key} made by task ${String(taskId)}`).toHaveLength(1);
    return ids![0]!;
  };
  const network = created((await post('/cloud/v1/networks/1/76', { name: 'net' })).tasks?.[0], 'networks');
  const subnet = created((await post('/cloud/v1/subnets/1/76', { name: 'subnet', network_id: network, cidr: '10.0.0.0/24' })).tasks?.[0], 'subnets');
  const group = created((await post('/cloud/v2/security_groups/1/76', { name: 'web' })).tasks?.[0], 'security_groups');
  const volume = created((await post('/cloud/v1/volumes/1/76', { source: 'new-volume', name: 'data', size: 5 })).tasks?.[0], 'volumes');
  await post('/cloud/v1/ssh_keys/1', { name: 'demo-key', public_key: CHAIN_PUBLIC_KEY });
  return { network, subnet, group, volume, key: 'demo-key' };
}

/** An image of the demo world a volume or an instance can be made from. */
export const CHAIN_IMAGE = '0a1b2c3d-0000-4000-8000-0000000000aa';

/**
 * A stack (name: app) of a network, its subnet (`app`), a boot volume made from an image, and an
 * instance booting from it on the subnet: what a replacement chain is tested on. `vm` and `extra`
 * are lines added to the instance and to the resources.
 */
export const chainStack = (o: { cidr?: string; type?: string; image?: string; vm?: string; extra?: string } = {}) => `version: 1
name: app
defaults: { project_id: 1, region_id: 76 }
resources:
  net:
    type: cloud_network
    name: app-net
    network_type: ${o.type ?? 'vxlan'}
  app:
    type: cloud_subnet
    name: app-subnet
    network_id: \${cloud_network.net.id}
    cidr: ${o.cidr ?? '10.0.0.0/24'}
  boot:
    type: cloud_volume
    name: app-boot
    size: 10
    source: image
    image_id: ${o.image ?? CHAIN_IMAGE}
  vm:
    type: cloud_instance
    name: app-1
    flavor_id: g2-standard-2-4
${o.vm ?? ''}    boot_volume_id: \${cloud_volume.boot.id}
    interfaces:
      - type: subnet
        network_id: \${cloud_network.net.id}
        subnet_id: \${cloud_subnet.app.id}
${o.extra ?? ''}`;
