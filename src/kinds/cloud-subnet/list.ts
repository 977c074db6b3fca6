import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { cloudTaggedList, liveTagsAnswer } from '../cloud-owned.js';

/** The fields of a subnet answer (SubnetSerializer) edgeform reads. */
export const subnetAnswer = z.looseObject({
  id: z.string(),
  name: z.string(),
  network_id: z.string(),
  cidr: z.string(),
  ip_version: z.union([z.literal(4), z.literal(6)]),
  enable_dhcp: z.boolean(),
  dns_nameservers: z.array(z.string()).nullish(),
  host_routes: z.array(z.looseObject({ destination: z.string(), nexthop: z.string() })).nullish(),
  gateway_ip: z.string().nullish(),
  tags: liveTagsAnswer,
  task_id: z.string().nullish(),
});

/** A subnet as edgeform reads it. */
export type Subnet = z.infer<typeof subnetAnswer>;

/** The subnets of a project and region (SubnetSerializerList, `limit`/`offset`, 1,000 a page), filtered by tags or not. */
export const subnetList = cloudTaggedList((s) => apiPath`/cloud/v1/subnets/${s.project_id}/${s.region_id}`, subnetAnswer);

/** A subnet's item path. */
export const subnetPath = (p: number, r: number, id: string | number) => apiPath`/cloud/v1/subnets/${p}/${r}/${id}`;

/** A subnet's fields as plans and import compare them: lists the platform leaves null are empty, no gateway is null. */
export function subnetFields(subnet: Subnet) {
  return {
    subnet_id: subnet.id,
    name: subnet.name,
    network_id: subnet.network_id,
    cidr: subnet.cidr,
    ip_version: subnet.ip_version,
    enable_dhcp: subnet.enable_dhcp,
    dns_nameservers: [...(subnet.dns_nameservers ?? [])],
    host_routes: (subnet.host_routes ?? []).map((r) => ({ destination: r.destination, nexthop: r.nexthop })),
    gateway_ip: subnet.gateway_ip ?? null,
  };
}
