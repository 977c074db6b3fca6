import { must } from '../../errors.js';
import { z } from 'zod';
import { KNOWN_AFTER_APPLY } from '../../plan/types.js';
import { networkList } from '../cloud-lists.js';
import { defineOwnedCloud, tagsPatchPayload } from '../cloud-owned.js';
import { withCreateFacts } from '../create.js';
import { listAll } from '../kind-list.js';
import { isWrittenOut, knownIn, notAmong } from '../refusals.js';
import { ADDRESS_TAG, STACK_TAG } from '../fields.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import type { Observation, PlanProblem, ProviderContext, ProviderPlan, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { userTags, type LiveTag } from '../tags-merge-patch.js';
import { subnetImport } from './import.js';
import { cidrsOverlap } from './schema.js';
import { subnetAnswer, subnetFields, subnetList, subnetPath, type Subnet } from './list.js';

const route = z.object({ destination: z.string(), nexthop: z.string() });

/** What the PATCH may change (PatchSubnetSerializer), each only when it differs; the tags merge patch (null removes every user tag). */
const payloadSchema = z.object({
  name: z.string().optional(),
  enable_dhcp: z.boolean().optional(),
  dns_nameservers: z.array(z.string()).optional(),
  host_routes: z.array(route).optional(),
  gateway_ip: z.string().nullable().optional(),
  tags_patch: tagsPatchPayload.optional(),
});

/** The create's payload: the POST body (CreateSubnetSerializer), its tags the user's and the two ownership tags. */
const createPayloadSchema = z.object({
  name: z.string(),
  network_id: z.string(),
  cidr: z.string(),
  ip_version: z.union([z.literal(4), z.literal(6)]).optional(),
  enable_dhcp: z.boolean().optional(),
  dns_nameservers: z.array(z.string()).optional(),
  host_routes: z.array(route).optional(),
  gateway_ip: z.string().nullable().optional(),
  connect_to_network_router: z.boolean().optional(),
  tags: z.record(z.string(), z.string()),
});

/** The projection of a subnet answer into an Observation: lists the platform leaves null are empty. */
function observe(subnet: Subnet): Observation & { exists: true } {
  return {
    exists: true,
    state: {
      ...subnetFields(subnet),
      tags: subnet.tags.map(({ key, value, read_only }) => ({ key, value, read_only })),
    },
    lockTaskId: subnet.task_id ?? null,
  };
}

const owned = defineOwnedCloud({
  type: 'cloud_subnet',
  noun: 'subnet',
  list: subnetList,
  get: async (ctx, d, id) => (await ctx.api.get(subnetPath(d.project_id, d.region_id, id), { schema: subnetAnswer, signal: ctx.signal })).body,
  observe,
});

type Desired = ResourceAttributes['cloud_subnet'];

/**
 * What a subnet's create plan checks: the place's subnets (for a CIDR overlapping another subnet
 * of its network, once the network's id is known at plan), and, for a network_id written out, the
 * place's networks. One list each a place, shared by the blocks.
 */
async function createFacts(ctx: ProviderContext, d: Desired): Promise<Record<string, unknown> | undefined> {
  if (d.subnet_id !== undefined || d.ensure === 'absent') return undefined;
  const scope = { project_id: d.project_id, region_id: d.region_id };
  const [subnets, networks] = await Promise.all([
    listAll(ctx, subnetList, scope, (x) => x.id),
    isWrittenOut(d.network_id) ? listAll(ctx, networkList, scope, (x) => x.id) : undefined,
  ]);
  return {
    subnets: subnets.map((x) => ({ id: x.id, name: x.name, network_id: x.network_id, cidr: x.cidr })),
    ...(networks === undefined ? {} : { networks: networks.map((x) => ({ key: x.id, label: x.name })) }),
  };
}

/** The plan errors of a create the platform would refuse: a network the place does not have, a CIDR overlapping another subnet of the network. Pure. */
function createProblems(d: Desired, facts: Readonly<Record<string, unknown>> | undefined): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const networks = knownIn(facts, 'networks');
  const network =
    networks &&
    notAmong(d.network_id, networks, {
      field: 'network_id',
      noun: 'network',
      where: `in project ${d.project_id}, region ${d.region_id}`,
      instead: 'To have edgeform create the network first, declare a cloud_network block and write network_id: ${cloud_network.NAME.id}.',
    });
  if (network) problems.push(network);
  const subnets = facts?.subnets as Array<{ id: string; name: string; network_id: string; cidr: string }> | undefined;
  if (subnets && d.network_id !== undefined && d.network_id !== KNOWN_AFTER_APPLY && d.cidr !== undefined) {
    const clash = subnets.find((x) => x.network_id === d.network_id && cidrsOverlap(x.cidr, must(d.cidr, 'd.cidr')));
    if (clash)
      problems.push({
        field: 'cidr',
        summary: `cidr ${d.cidr} overlaps subnet ${clash.name} (${clash.id}, ${clash.cidr}) of network ${d.network_id}`,
        detail: "A network's subnets cannot share addresses: choose a range outside the others. The platform would refuse the create; nothing was sent.",
      });
  }
  return problems;
}

/** The reads, each subnet to create with what its create plan checks. */
const readsWithFacts = withCreateFacts(owned, createFacts, (d, state) => cloudSubnet.plan(d, state).action === 'replace');

/** The fields a block declares that a create sends besides its tags (the platform's defaults for the others). */
function createBody(d: ResourceAttributes['cloud_subnet']): Record<string, unknown> {
  const fields = {
    name: d.name ?? '',
    network_id: d.network_id ?? '',
    cidr: d.cidr ?? '',
    ip_version: d.ip_version,
    enable_dhcp: d.enable_dhcp,
    dns_nameservers: d.dns_nameservers,
    host_routes: d.host_routes,
    gateway_ip: d.gateway_ip,
    connect_to_network_router: d.connect_to_network_router,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * Create (`create_subnet`, a task listing the subnet under `created_resources.subnets`), the
 * synchronous PATCH (name, DHCP, DNS servers, routes, gateway, tags merge patch; idempotent) and
 * delete (`delete_subnet`, a task); a replacement deletes the subnet, then creates the new one.
 */
const lifecycle = defineLifecycle('cloud_subnet', {
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: (subnet: Subnet) => subnet.task_id ?? null },
  replace: true,
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: subnetList.path(d), body: payload }),
    tasks: {
      type: 'create_subnet',
      reread: (ctx, { change, desired, payload: { tags } }) => owned.findOwned(ctx, desired, { address: tags[ADDRESS_TAG] ?? change.address, stack: tags[STACK_TAG] ?? null }),
      done: (subnet) => subnet !== null,
    },
    created: { key: 'subnets', noun: 'subnet' },
  },
  update: {
    payload: payloadSchema,
    request: ({ desired: d, payload: { tags_patch, ...fields }, id }) => ({
      method: 'PATCH',
      path: subnetPath(d.project_id, d.region_id, id),
      body: { ...fields, ...(tags_patch === undefined ? {} : { tags: tags_patch }) },
    }),
  },
  delete: {
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: subnetPath(d.project_id, d.region_id, id) }),
    tasks: { type: 'delete_subnet', resend: true, reread: (ctx, { desired, id }) => owned.readOrGone(ctx, desired, id), done: (subnet) => subnet === null },
  },
});

/**
 * Cloud subnets: edgeform creates them in a network (usually `${cloud_network.NAME.id}`), found
 * again by their ownership tags (see cloud-owned.ts); name, DHCP, DNS servers, routes, gateway
 * and user tags change in place; a different network, CIDR or IP version destroys the subnet
 * and creates it again (`-/+`, the forcing field named). The subnets of one project and region
 * are read together from the list (1,000 a page).
 */
export const cloudSubnet: ResourceProvider<'cloud_subnet'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_subnet',
  read: readsWithFacts.read,
  groupRead: readsWithFacts.groupRead,
  import: subnetImport,
  create: {
    plan(d, ref, facts): ProviderPlan {
      const planned = owned.createPlan(d, ref, { project_id: d.project_id, region_id: d.region_id, ...createBody(d) }, createBody(d));
      const problems = createProblems(d, facts);
      return problems.length === 0 ? planned : { ...planned, errors: [...planned.errors, ...problems] };
    },
    identity: owned.create.identity,
  },
  ownership: owned.ownership((desired, state) => cloudSubnet.plan(desired, state)),
  summarize: (state) => ({
    subnet_id: state.subnet_id,
    name: state.name,
    network_id: state.network_id,
    cidr: state.cidr,
    gateway_ip: state.gateway_ip,
    tags: userTags(state.tags as LiveTag[]),
  }),
  plan: (d, state) =>
    owned.planDiff(d, state, [
      { field: 'name', want: d.name, have: state.name },
      { field: 'network_id', want: d.network_id, have: state.network_id, forces: true },
      { field: 'cidr', want: d.cidr, have: state.cidr, forces: true },
      { field: 'ip_version', want: d.ip_version, have: state.ip_version, forces: true },
      { field: 'enable_dhcp', want: d.enable_dhcp, have: state.enable_dhcp },
      { field: 'dns_nameservers', want: d.dns_nameservers, have: state.dns_nameservers },
      { field: 'host_routes', want: d.host_routes, have: state.host_routes },
      { field: 'gateway_ip', want: d.gateway_ip, have: state.gateway_ip },
    ]),
};
