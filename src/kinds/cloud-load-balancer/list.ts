import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { cloudTaggedList, liveTagsAnswer } from '../cloud-owned.js';

/**
 * The fields of a balancer answer (LoadbalancerSerializer) edgeform reads. The platform answers
 * the tags as `tags_v2` (the create request's `tags`); they are read as `tags`, as the other
 * owned kinds' are. The VIP's subnet shows only in `vrrp_ips`.
 */
export const balancerAnswer = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    flavor: z.looseObject({ flavor_name: z.string().nullish(), flavor_id: z.string().nullish() }).nullish(),
    vip_address: z.string().nullish(),
    vip_ip_family: z.enum(['ipv4', 'ipv6', 'dual']).nullish(),
    vrrp_ips: z.array(z.looseObject({ subnet_id: z.string().nullish() })).nullish(),
    floating_ips: z.array(z.looseObject({ id: z.string(), floating_ip_address: z.string().nullish() })).nullish(),
    logging: z
      .looseObject({
        enabled: z.boolean().nullish(),
        destination_region_id: z.int().nullish(),
        topic_name: z.string().nullish(),
        retention_policy: z.looseObject({ period: z.int().nullish() }).nullish(),
      })
      .nullish(),
    provisioning_status: z.string().nullish(),
    operating_status: z.string().nullish(),
    tags_v2: liveTagsAnswer.nullish(),
    task_id: z.string().nullish(),
  })
  .transform(({ tags_v2, ...rest }) => ({ ...rest, tags: tags_v2 ?? [] }));

/** A balancer as edgeform reads it. */
export type Balancer = z.output<typeof balancerAnswer>;

/** The balancers of a project and region (`limit`/`offset`, 1,000 a page), filtered by tags or not. */
export const balancerList = cloudTaggedList((s) => apiPath`/cloud/v1/loadbalancers/${s.project_id}/${s.region_id}`, balancerAnswer);

/** A balancer's fields as plans and import compare them. */
export function balancerFields(lb: Balancer) {
  const logging = lb.logging ?? null;
  return {
    load_balancer_id: lb.id,
    name: lb.name,
    flavor: lb.flavor?.flavor_name ?? lb.flavor?.flavor_id ?? null,
    vip_address: lb.vip_address ?? null,
    vip_subnet_id: lb.vrrp_ips?.find((v) => v.subnet_id)?.subnet_id ?? null,
    vip_ip_family: lb.vip_ip_family ?? null,
    floating_ip_ids: (lb.floating_ips ?? []).map((f) => f.id),
    floating_ip_address: lb.floating_ips?.[0]?.floating_ip_address ?? null,
    logging: {
      enabled: logging?.enabled ?? false,
      destination_region_id: logging?.destination_region_id ?? null,
      topic_name: logging?.topic_name ?? null,
      retention_period: logging?.retention_policy?.period ?? null,
    },
    provisioning_status: lb.provisioning_status ?? null,
  };
}
