import type { KindEconomics } from './economics.js';
import type { ResourceType } from './registry.js';
import { floatingIpEconomics } from './cloud-floating-ip/economics.js';
import { instanceEconomics } from './cloud-instance/economics.js';
import { loadBalancerEconomics } from './cloud-load-balancer/economics.js';
import { networkEconomics } from './cloud-network/economics.js';
import { securityGroupEconomics } from './cloud-security-group/economics.js';
import { sshKeyEconomics } from './cloud-ssh-key/economics.js';
import { subnetEconomics } from './cloud-subnet/economics.js';
import { volumeEconomics } from './cloud-volume/economics.js';

/**
 * The kinds' quota and price declarations (see KindEconomics), by type: a kind missing here is
 * not priced and takes no quota. Kept apart from the providers table so a family adds its line
 * without touching the providers.
 */
export const economics: { [T in ResourceType]?: KindEconomics<T> } = {
  cloud_floating_ip: floatingIpEconomics,
  cloud_instance: instanceEconomics,
  cloud_load_balancer: loadBalancerEconomics,
  cloud_network: networkEconomics,
  cloud_subnet: subnetEconomics,
  cloud_security_group: securityGroupEconomics,
  cloud_ssh_key: sshKeyEconomics,
  cloud_volume: volumeEconomics,
};
