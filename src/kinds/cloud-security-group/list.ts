import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { cloudTaggedList, liveTagsAnswer } from '../cloud-owned.js';

/**
 * A rule's protocol as the v1 answers give it (SecurityGroupProtocolEnum, null allowed): `any`
 * and null both mean every protocol, read as null, the form of the v2 requests
 * (SecurityGroupProtocolEnumV2 has no `any`), so a rule reads the same in either spelling.
 */
const ruleProtocol = z
  .string()
  .nullable()
  .transform((p) => (p === 'any' ? null : p));

/** The fields of a rule answer (SecurityGroupRuleSerializer) edgeform reads. */
const ruleAnswer = z.looseObject({
  id: z.string(),
  direction: z.enum(['ingress', 'egress']),
  ethertype: z.enum(['IPv4', 'IPv6']).nullable(),
  protocol: ruleProtocol,
  port_range_min: z.int().nullable(),
  port_range_max: z.int().nullable(),
  remote_ip_prefix: z.string().nullable(),
  remote_group_id: z.string().nullable(),
  description: z.string().nullable(),
});

/**
 * The fields of a security group answer (SecurityGroupSerializer) edgeform reads; its tags
 * (`tags_v2`) are read as `tags`, as every owned cloud kind's. The group shows no lock.
 */
export const securityGroupAnswer = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    description: z.string().nullish(),
    security_group_rules: z.array(ruleAnswer).default([]),
    tags_v2: liveTagsAnswer,
  })
  .transform((g) => ({ ...g, tags: g.tags_v2 }));

/** A security group as edgeform reads it. */
export type SecurityGroup = z.output<typeof securityGroupAnswer>;

/** The security groups of a project and region (`limit`/`offset`, 1,000 a page; tag filters): grouped reads, the find by ownership tags, prune and import. */
export const securityGroupList = cloudTaggedList((s) => apiPath`/cloud/v1/securitygroups/${s.project_id}/${s.region_id}`, securityGroupAnswer);
