import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { PlanPayloadError, must } from '../../errors.js';
import { fingerprint } from '../../model/fingerprint.js';
import { KNOWN_AFTER_APPLY, type FieldChange, type ResourceChange } from '../../plan/types.js';
import { createPlan, onlyMatch, REPLACED_STATE, withCreateFacts } from '../create.js';
import { ADDRESS_TAG, STACK_TAG } from '../fields.js';
import { fetchListPage, listAll, listEndpointOf } from '../kind-list.js';
import { judgedOwner, ownerOf, ownershipNote, ownershipPatch, ownershipTags, unprovenByTags } from '../cloud-owned.js';
import { imageList, networkList, placeLists, sshKeyList } from '../cloud-lists.js';
import { didYouMean } from '../did-you-mean.js';
import { isWrittenOut, knownIn, notAmong } from '../refusals.js';
import type { Observation, OwnedResource, PlanProblem, ProviderContext, ProviderPlan, ResourceProvider, ResourceRef } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { defineListReads } from '../list-read.js';
import { cloudTaskScope, defineLifecycle } from '../lifecycle.js';
import { readOrGone } from '../shared.js';
import { planTagsPatch, userTags, type LiveTag } from '../tags-merge-patch.js';
import { instanceImport } from './import.js';
import { instanceAnswer, instanceList, instanceTaggedList, type Instance } from './list.js';
import { CREATE_DIGESTED_FIELDS } from './schema.js';

type Desired = ResourceAttributes['cloud_instance'];

/** The flavors an instance may be resized to (InstanceFlavorExtendedCollectionSerializer), and the region's (InstanceFlavorExtendedV1CollectionSerializer). */
const flavorsAnswer = z.looseObject({
  results: z.array(z.looseObject({ flavor_id: z.string().optional(), flavor_name: z.string().optional(), disabled: z.boolean().optional() })),
});

/**
 * The update's payload: the flavor to resize to (changeflavor, a task), and the name and the tags
 * merge patch (one synchronous PATCH); each only when it changes. A resize alone is `{flavor_id}`.
 */
const payloadSchema = z
  .object({
    flavor_id: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
    tags_patch: z.record(z.string(), z.string().nullable()).nullable().optional(),
  })
  .refine((p) => p.flavor_id !== undefined || p.name !== undefined || p.tags_patch !== undefined, {
    path: ['flavor_id'],
    message: 'an instance update changes its flavor (flavor_id), its name or its tags (tags_patch)',
  });

/** The create's payload: the CreateInstanceSerializerV2 body it sends (ownership tags included). */
const createPayloadSchema = z.looseObject({
  flavor: z.string().min(1),
  volumes: z.array(z.looseObject({ source: z.string() })).min(1),
  interfaces: z.array(z.looseObject({ type: z.string() })).min(1),
  tags: z.record(z.string(), z.string()),
});

/** A tag value is at most 255 characters on the platform, the address tag's included. */
const MAX_TAG_VALUE = 255;

const instancePath = (p: number, r: number, id: string) => apiPath`/cloud/v1/instances/${p}/${r}/${id}`;
const createPath = (p: number, r: number) => apiPath`/cloud/v2/instances/${p}/${r}`;
const regionFlavorsPath = (p: number, r: number) => apiPath`/cloud/v1/flavors/${p}/${r}`;

/** The identity of a block without an id, as the plan shows it: the ownership tags naming its stack. */
const ownershipIdentity = (stack: string | null) => `ownership tags of stack ${JSON.stringify(stack ?? '')}`;

const tagValue = (vm: Instance, key: string) => vm.tags.find((t) => t.key === key && !t.read_only)?.value;

/**
 * The flavors each instance offered at its flavor, and each region's flavors, as read in this
 * run: per API client (one client serves one run; a wrapper around it shares its cacheKey). An instance is asked once a run what it may
 * be resized to from a flavor: the plan asks, and apply's read before the resize and its
 * re-reads while the new flavor does not show yet reuse the answer. What apply sends is still
 * only ever the approved change from the flavor the plan saw; a flavor the platform withdrew
 * since then is refused by changeflavor itself.
 */
const offered = new WeakMap<object, Map<string, Promise<string[]>>>();

/** A list of flavors read once a run (per API client and key); a read that failed is asked again next time. */
async function cachedFlavors(ctx: ProviderContext, key: string, path: string, keep: (f: z.infer<typeof flavorsAnswer>['results'][number]) => boolean): Promise<string[]> {
  const client = ctx.api.cacheKey ?? ctx.api;
  let seen = offered.get(client);
  if (!seen) {
    seen = new Map();
    offered.set(client, seen);
  }
  let known = seen.get(key);
  if (!known) {
    known = ctx.api.get(path, { schema: flavorsAnswer, signal: ctx.signal }).then(({ body }) =>
      body.results
        .filter(keep)
        .map((f) => f.flavor_id ?? f.flavor_name)
        .filter((f): f is string => f !== undefined),
    );
    seen.set(key, known);
    known.catch(() => seen.delete(key));
  }
  return [...(await known)];
}

const availableFlavors = (ctx: ProviderContext, d: Desired, id: string, currentFlavor: string) =>
  cachedFlavors(ctx, JSON.stringify([d.project_id, d.region_id, id, currentFlavor]), `${instancePath(d.project_id, d.region_id, id)}/available_flavors`, () => true);

const regionFlavors = (ctx: ProviderContext, d: Desired) =>
  cachedFlavors(ctx, JSON.stringify(['region', d.project_id, d.region_id]), regionFlavorsPath(d.project_id, d.region_id), (f) => f.disabled !== true);

/** The first address of a type an instance shows, networks in the order the answer lists them. */
function firstAddress(vm: Instance, type: 'fixed' | 'floating'): string | null {
  for (const list of Object.values(vm.addresses)) for (const a of list) if (a.type === type) return a.addr;
  return null;
}

/** The projection of an instance answer into its state (without the flavors a resize may choose from). */
function stateOf(vm: Instance): Record<string, unknown> {
  return {
    instance_id: vm.id,
    name: vm.name,
    status: vm.status,
    flavor_id: vm.flavor.flavor_id,
    tags: vm.tags.map(({ key, value, read_only }) => ({ key, value, read_only })),
    // The volumes it was given (an existing volume is never deleted with it); those it made itself go with it.
    attached_volume_ids: vm.volumes.filter((v) => !v.delete_on_termination).map((v) => v.id),
    ssh_key_name: vm.ssh_key_name ?? null,
    fixed_ip_address: firstAddress(vm, 'fixed'),
    floating_ip_address: firstAddress(vm, 'floating'),
  };
}

/** Every instance of a project and region carrying each key → value of `wanted` (the list's tag filter, checked again here). */
async function listCarrying(ctx: ProviderContext, d: { project_id: number; region_id: number }, wanted: Readonly<Record<string, string>>): Promise<Instance[]> {
  const all = await listAll(ctx, instanceTaggedList, { project_id: d.project_id, region_id: d.region_id, tagKeyValue: JSON.stringify(wanted) }, (vm) => vm.id);
  return all.filter((vm) => Object.entries(wanted).every(([key, value]) => tagValue(vm, key) === value));
}

/** Finds a block without an id by its ownership tags in its project and region; more than one is ambiguous. */
async function findOwned(ctx: ProviderContext, d: Desired, ref: ResourceRef): Promise<Instance | null> {
  if (ref.stack === null) return null;
  const matches = await listCarrying(ctx, d, { [STACK_TAG]: ref.stack, [ADDRESS_TAG]: ref.address });
  return onlyMatch(matches, (vm) => vm.id, { type: 'cloud_instance', identity: `${ownershipIdentity(ref.stack)} (${ADDRESS_TAG} ${ref.address})` });
}

/** Reads one instance (GET) or the instances of a project and region (the list), with one projection; a block without id by its ownership tags. */
const reads = defineListReads<'cloud_instance', Instance>({
  readOne: (ctx, d) =>
    readOrGone(async () => (await ctx.api.get(instancePath(d.project_id, d.region_id, d.instance_id ?? ''), { schema: instanceAnswer, signal: ctx.signal })).body),
  async project(ctx, desired, vm) {
    const state = stateOf(vm);
    // Only a resize needs the list of flavors the instance may move to.
    if (vm.flavor.flavor_id !== desired.flavor_id) state.available_flavors = await availableFlavors(ctx, desired, vm.id, vm.flavor.flavor_id);
    return { exists: true, state, lockTaskId: vm.task_id };
  },
  async find(ctx, d, ref) {
    const vm = await findOwned(ctx, d, ref);
    return vm === null ? null : { item: vm, foundBy: ownershipIdentity(ref.stack) };
  },
  hasId: (d) => d.instance_id !== undefined,
  // The blocks of a project and region found by their ownership tags: one list of the instances
  // tagged with the stack's name (edgeform-stack), each block picked by its address (edgeform-address).
  findInList: {
    key: (_d, ref) => ref.address,
    itemKey: (vm) => tagValue(vm, ADDRESS_TAG),
    pick(_d, matches, ref) {
      const vm = onlyMatch(
        matches.filter((m) => tagValue(m, STACK_TAG) === ref.stack),
        (m) => m.id,
        { type: 'cloud_instance', identity: `${ownershipIdentity(ref.stack)} (${ADDRESS_TAG} ${ref.address})` },
      );
      return vm === null ? null : { item: vm, foundBy: ownershipIdentity(ref.stack) };
    },
    list: {
      paging: instanceTaggedList.paging,
      canMatch: ([ref]) => ref?.stack !== null && ref?.stack !== undefined,
      describe: ([d]) => `GET ${instanceList.path(d)}`,
      fetchPage: (ctx, [d], [ref], page) =>
        fetchListPage(ctx, instanceTaggedList, { project_id: d.project_id, region_id: d.region_id, tagKeyValue: JSON.stringify({ [STACK_TAG]: must(ref, 'ref').stack }) }, page),
    },
  },
  list: {
    group: (d) => `${d.project_id}/${d.region_id}`,
    memberId: (d) => d.instance_id ?? '',
    itemId: (vm) => vm.id,
    ...listEndpointOf(instanceList, ([d]) => d),
  },
});

/**
 * A block edgeform would create, read as absent, with what its create plan checks its values
 * against: the region's flavors (read once a run per project and region), and, for a value
 * written out (a reference names a block that exists or is created first), the project's SSH keys
 * and the region's images (one list each a place, shared by the blocks and with the SSH key
 * blocks' own reads), with the names the stack's cloud_ssh_key blocks create.
 */
async function createFacts(ctx: ProviderContext, d: Desired): Promise<Record<string, unknown> | undefined> {
  if (d.instance_id !== undefined || d.ensure === 'absent') return undefined;
  const scope = { project_id: d.project_id, region_id: d.region_id };
  const [flavors, keys, images] = await Promise.all([
    regionFlavors(ctx, d),
    isWrittenOut(d.ssh_key_name) ? listAll(ctx, sshKeyList, { project_id: d.project_id }, (k) => k.id) : undefined,
    isWrittenOut(d.image_id) ? listAll(ctx, imageList, scope, (i) => i.id) : undefined,
  ]);
  const declaredKeys = (ctx.stack?.blocks('cloud_ssh_key') ?? []).filter((k) => k.project_id === d.project_id && k.ensure !== 'absent' && k.name !== undefined);
  return {
    ...(await placeFacts(ctx, d)),
    region_flavors: flavors,
    ...(keys === undefined
      ? {}
      : { ssh_keys: [...keys.map((k) => ({ key: k.name })), ...declaredKeys.map((k) => ({ key: must(k.name, 'k.name'), label: 'created by this stack' }))] }),
    ...(images === undefined ? {} : { images: images.map((i) => ({ key: i.id, label: i.name })) }),
  };
}

/** The ids an instance names in its place, by the place list each is checked against. */
function namedIds(d: Desired): Record<keyof typeof placeLists | 'networks', unknown[]> {
  const interfaces = d.interfaces ?? [];
  return {
    networks: interfaces.map((x) => x.network_id),
    subnets: interfaces.map((x) => x.subnet_id),
    floating_ips: interfaces.map((x) => x.floating_ip_id),
    security_groups: d.security_group_ids ?? [],
    volumes: [d.boot_volume_id, ...(d.volume_ids ?? [])],
  };
}

/**
 * The networks, subnets, floating IPs, security groups and volumes of the place, each list read
 * only when the block names one of its kind by an id written out (a reference names a block that
 * exists or is created first); one list a place, shared by the blocks.
 */
async function placeFacts(ctx: ProviderContext, d: Desired): Promise<Record<string, unknown>> {
  const scope = { project_id: d.project_id, region_id: d.region_id };
  const named = namedIds(d);
  const lists = { networks: networkList, ...placeLists };
  const read = await Promise.all(
    (Object.keys(lists) as Array<keyof typeof lists>).map(async (kind) => {
      if (!named[kind].some(isWrittenOut)) return [];
      const items: Array<{
        id: string;
        name?: string | null;
        network_id?: string | null;
        port_id?: string | null;
        attachments?: unknown[] | null;
        floating_ip_address?: string | null;
      }> = await listAll(ctx, lists[kind] as typeof placeLists.subnets, scope, (x) => x.id);
      return [
        [
          `place_${kind}`,
          items.map((x) => ({
            id: x.id,
            name: x.name ?? null,
            network_id: x.network_id ?? null,
            taken: (x.port_id ?? null) !== null || (x.attachments ?? []).length > 0,
            address: x.floating_ip_address ?? null,
          })),
        ],
      ];
    }),
  );
  return Object.fromEntries(read.flat());
}

/** A thing of the place an instance names, as its facts hold it. */
interface PlaceFact {
  id: string;
  name: string | null;
  network_id: string | null;
  taken: boolean;
  /** A floating IP's address. */
  address: string | null;
}

/**
 * Whether a taken thing of the place is held by the instance a replacement destroys first (its
 * given volumes, its floating IP): the destroy frees it for the new instance. None for a create.
 */
function heldByReplaced(found: PlaceFact, facts: Readonly<Record<string, unknown>> | undefined): boolean {
  const old = facts?.[REPLACED_STATE] as Readonly<Record<string, unknown>> | undefined;
  if (old === undefined) return false;
  const volumes = Array.isArray(old.attached_volume_ids) ? (old.attached_volume_ids as unknown[]) : [];
  return volumes.includes(found.id) || (found.address !== null && found.address === old.floating_ip_address);
}

/**
 * The plan errors of an instance to create that names, in its place, a network, subnet, floating
 * IP, security group or volume that is not there (404), a subnet of another network (400), or a
 * floating IP or volume another instance holds (409). Pure.
 */
function placeProblems(d: Desired, facts: Readonly<Record<string, unknown>> | undefined): PlanProblem[] {
  const where = `in project ${d.project_id}, region ${d.region_id}`;
  const problems: PlanProblem[] = [];
  const check = (kind: string, noun: string, field: string, path: string, value: unknown, taken?: string): PlaceFact | undefined => {
    const list = facts?.[`place_${kind}`] as PlaceFact[] | undefined;
    if (list === undefined || typeof value !== 'string') return undefined;
    const problem = notAmong(
      value,
      list.map((x) => ({ key: x.id, ...(x.name === null ? {} : { label: x.name }) })),
      { field, path, noun, where },
    );
    if (problem !== null) {
      problems.push(problem);
      return undefined;
    }
    const found = list.find((x) => x.id === value);
    if (found?.taken && taken !== undefined && !heldByReplaced(found, facts))
      problems.push({ field, summary: `${path} ${JSON.stringify(value)} ${taken}`, detail: 'The platform would refuse the create; nothing was sent.' });
    return found;
  };
  (d.interfaces ?? []).forEach((x, i) => {
    check('networks', 'network', 'interfaces', `interfaces[${i}].network_id`, x.network_id);
    const subnet = check('subnets', 'subnet', 'interfaces', `interfaces[${i}].subnet_id`, x.subnet_id);
    if (subnet !== undefined && typeof x.network_id === 'string' && x.network_id !== KNOWN_AFTER_APPLY && subnet.network_id !== null && subnet.network_id !== x.network_id)
      problems.push({
        field: 'interfaces',
        summary: `interfaces[${i}].subnet_id ${JSON.stringify(x.subnet_id)} is a subnet of network ${subnet.network_id}, not of ${x.network_id}`,
      });
    check('floating_ips', 'floating IP', 'interfaces', `interfaces[${i}].floating_ip_id`, x.floating_ip_id, 'is assigned to a port already: a floating IP serves one interface');
  });
  (d.security_group_ids ?? []).forEach((id, i) => check('security_groups', 'security group', 'security_group_ids', `security_group_ids[${i}]`, id));
  check('volumes', 'volume', 'boot_volume_id', 'boot_volume_id', d.boot_volume_id, 'is attached to an instance already: a volume must be available');
  (d.volume_ids ?? []).forEach((id, i) => check('volumes', 'volume', 'volume_ids', `volume_ids[${i}]`, id, 'is attached to an instance already: a volume must be available'));
  return problems;
}

/** The reads, each absent block that would be created with what its create plan checks (a failed list read fails the member). */
const readsWithFacts = withCreateFacts(reads, createFacts, (d, state) => planInstance(d, state).action === 'replace');

/** The create request (CreateInstanceSerializerV2) a block makes, ownership tags included. Pure. */
function createBody(d: Desired, ownership: Record<string, string>): Record<string, unknown> {
  const digests = createDigests(d);
  const declaredTags = Object.fromEntries(Object.entries(d.tags ?? {}).filter((entry): entry is [string, string] => entry[1] !== null));
  const boot =
    d.image_id !== undefined
      ? {
          source: 'image',
          image_id: d.image_id,
          boot_index: 0,
          // The boot volume made from the image is the instance's own: it goes when the instance goes.
          delete_on_termination: true,
          ...(d.boot_volume_size === undefined ? {} : { size: d.boot_volume_size }),
          ...(d.boot_volume_type === undefined ? {} : { type_name: d.boot_volume_type }),
        }
      : { source: 'existing-volume', volume_id: d.boot_volume_id, boot_index: 0, delete_on_termination: false };
  const extra = (d.volume_ids ?? []).map((volume_id) => ({ source: 'existing-volume', volume_id, delete_on_termination: false }));
  const interfaces = (d.interfaces ?? []).map((x) => ({
    type: x.type,
    ...(x.network_id === undefined ? {} : { network_id: x.network_id }),
    ...(x.subnet_id === undefined ? {} : { subnet_id: x.subnet_id }),
    ...(x.floating_ip_id === undefined ? {} : { floating_ip: { source: 'existing', existing_floating_id: x.floating_ip_id } }),
  }));
  return {
    ...(d.name === undefined ? {} : { name: d.name }),
    flavor: d.flavor_id,
    volumes: [boot, ...extra],
    interfaces,
    ...(d.security_group_ids === undefined ? {} : { security_groups: d.security_group_ids.map((id) => ({ id })) }),
    ...(d.ssh_key_name === undefined ? {} : { ssh_key_name: d.ssh_key_name }),
    ...(d.user_data === undefined ? {} : { user_data: Buffer.from(d.user_data, 'utf8').toString('base64') }),
    tags: { ...declaredTags, ...ownership, ...(digests === '' ? {} : { [CREATE_TAG]: digests }) },
  };
}

/**
 * The tag a create writes with a digest of each field it sends that the instance does not show
 * (`image_id:1a2b3c4d5e6f,interfaces:...`): an edgeform tag, never shown, never drift.
 */
export const CREATE_TAG = 'edgeform-create';

/** The digest of a field's value as the create tag holds it: 12 hex digits of its canonical JSON's SHA-256. */
const digestOf = (value: unknown) => fingerprint(value ?? null).slice(0, 12);

/** The create tag's value for a block: each digested field it declares, `field:digest`, comma-separated. Pure. */
function createDigests(d: Desired): string {
  return CREATE_DIGESTED_FIELDS.filter((field) => d[field] !== undefined)
    .map((field) => `${field}:${digestOf(d[field])}`)
    .join(',');
}

/** The digests a live create tag holds, by field (none: an instance edgeform did not create). */
function liveDigests(tags: readonly LiveTag[]): Map<string, string> {
  const value = tags.find((t) => t.key === CREATE_TAG && !t.read_only)?.value ?? '';
  return new Map(
    value
      .split(',')
      .filter((part) => part.includes(':'))
      .map((part) => part.split(':', 2) as [string, string]),
  );
}

/** What a block declares of the existing volumes attached to it (boot and extra), or undefined when it declares neither. */
function declaredVolumes(d: Desired): string[] | undefined {
  if (d.boot_volume_id === undefined && d.volume_ids === undefined) return undefined;
  return [...(d.boot_volume_id === undefined ? [] : [d.boot_volume_id]), ...(d.volume_ids ?? [])];
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/**
 * The changes of fields only a create sets, each forcing a replacement: those the instance shows
 * (its SSH key, the existing volumes attached to it) against what it shows, the others (the
 * image and boot volume, the interfaces, the security groups, the user data) against the digests
 * its create wrote in its `edgeform-create` tag (an instance without the tag: not compared).
 */
function forcedChanges(d: Desired, state: Record<string, unknown>): FieldChange[] {
  const changes: FieldChange[] = [];
  const created = liveDigests((state.tags as LiveTag[] | undefined) ?? []);
  if (created.size > 0) {
    // The fields the instance was created with, by their digests: one declared differently, added or dropped.
    for (const field of CREATE_DIGESTED_FIELDS) {
      // A block adopting the instance by id manages only what it declares.
      if (d.instance_id !== undefined && d[field] === undefined) continue;
      const was = created.get(field);
      const now = d[field] === undefined ? undefined : digestOf(d[field]);
      if (was !== now) changes.push({ path: [field], op: 'update', before: was === undefined ? null : '(as created)', after: d[field] ?? null, forces_replacement: true });
    }
  }
  if (d.ssh_key_name !== undefined && d.ssh_key_name !== state.ssh_key_name) {
    changes.push({ path: ['ssh_key_name'], op: 'update', before: state.ssh_key_name ?? null, after: d.ssh_key_name, forces_replacement: true });
  }
  const volumes = declaredVolumes(d);
  const attached = (state.attached_volume_ids as string[] | undefined) ?? [];
  if (volumes !== undefined && !sameSet(volumes, attached)) {
    changes.push({ path: ['volume_ids'], op: 'update', before: attached, after: volumes, forces_replacement: true });
  }
  return changes;
}

/** The plan of an existing instance: forced replacement, else resize, rename and tags (see cloudInstance.plan). Pure. */
function planInstance(desired: Desired, state: Record<string, unknown>): ProviderPlan {
  const live = (state.tags as LiveTag[] | undefined) ?? [];
  const before: Record<string, unknown> = { instance_id: state.instance_id, flavor_id: state.flavor_id };
  const after: Record<string, unknown> = { instance_id: state.instance_id, flavor_id: desired.flavor_id };
  if (desired.name !== undefined) [before.name, after.name] = [state.name, desired.name];
  const errors: PlanProblem[] = [];
  const changes: FieldChange[] = [];
  const payload: z.infer<typeof payloadSchema> = {};
  const notes: string[] = [];

  const forced = forcedChanges(desired, state);
  if (forced.length > 0) {
    if (desired.instance_id !== undefined) {
      return {
        ...noChange(before, after),
        errors: forced.map((c) => ({
          field: String(c.path[0]),
          summary: `${String(c.path[0])} of instance ${String(state.name)} cannot change in place, and an instance adopted by instance_id is never replaced`,
          detail: 'Declare what the instance has, or remove instance_id so edgeform creates the instance (and replaces it when such a field changes).',
        })),
      };
    }
    for (const c of forced) [before[String(c.path[0])], after[String(c.path[0])]] = [c.before, c.after];
    return { action: 'replace', before, after, changes: forced, errors: [], warnings: [], notes: [] };
  }

  if (state.flavor_id !== desired.flavor_id) {
    const available = (state.available_flavors as string[] | undefined) ?? [];
    if (!available.includes(desired.flavor_id)) {
      errors.push({
        field: 'flavor_id',
        summary: `flavor "${desired.flavor_id}" is not available for instance ${String(state.name)}`,
        detail: `Flavors this instance can be resized to: ${available.length > 0 ? available.join(', ') : 'none'}.`,
      });
    }
    changes.push({ path: ['flavor_id'], op: 'update', before: state.flavor_id, after: desired.flavor_id });
    payload.flavor_id = desired.flavor_id;
  }
  if (desired.name !== undefined && desired.name !== state.name) {
    changes.push({ path: ['name'], op: 'update', before: state.name, after: desired.name });
    payload.name = desired.name;
  }
  let unchangedTags: number | undefined;
  if (desired.tags !== undefined) {
    const tags = planTagsPatch(live, desired.tags, desired.tags_policy ?? 'authoritative');
    [before.tags, after.tags] = [userTags(live), tags.after];
    changes.push(...tags.changes);
    unchangedTags = tags.unchanged;
    if (tags.patch !== undefined) payload.tags_patch = tags.patch;
    if (tags.patch === null) notes.push('every user tag is removed with "tags": null; read-only tags stay');
    for (const key of tags.readOnlyKeys) {
      errors.push({
        field: 'tags',
        summary: `tag "${key}" is read-only on the platform and cannot be set or removed`,
        detail: `Remove "${key}" from tags; the platform keeps read-only tags as they are.`,
      });
    }
  }
  if (errors.length > 0) return { ...noChange(before, after), errors };
  const update = Object.keys(payload).length > 0;
  return {
    action: update ? 'update' : 'no-op',
    before,
    after,
    changes: update ? changes : [],
    ...(unchangedTags === undefined ? {} : { unchanged_elements: { tags: unchangedTags } }),
    ...(update ? { payload } : {}),
    errors: [],
    warnings: [],
    notes,
  };
}

function noChange(before: Record<string, unknown>, after: Record<string, unknown>): ProviderPlan {
  return { action: 'no-op', before, after, changes: [], errors: [], warnings: [], notes: [] };
}

const getInstance = async (ctx: ProviderContext, d: Desired, id: string) =>
  (await ctx.api.get(instancePath(d.project_id, d.region_id, id), { schema: instanceAnswer, signal: ctx.signal })).body;

/**
 * Create (`create_vm`, v2 POST), the update (a rename and the tags merge patch in one synchronous
 * PATCH; a resize by changeflavor, a `resize_vm` task never sent twice), delete (`delete_vm`)
 * and replace (delete, then create). The create POST is never sent twice: after a lost answer the
 * instance is looked for by its ownership tags. The delete sends no query options: the floating
 * IPs and the existing volumes the instance was given stay (their own blocks manage them), and
 * the boot volume made from an image goes with it (created delete_on_termination).
 */
const lifecycle = defineLifecycle('cloud_instance', {
  updateVerbs: ['Modifying', 'Modified'],
  tasks: { scope: cloudTaskScope, lock: (vm: Instance) => vm.task_id },
  replace: true,
  create: {
    payload: createPayloadSchema,
    request: ({ desired: d, payload }) => ({ method: 'POST', path: createPath(d.project_id, d.region_id), body: payload }),
    tasks: {
      type: 'create_vm',
      reread: (ctx, { change, desired, payload: { tags } }) => findOwned(ctx, desired, { address: tags[ADDRESS_TAG] ?? change.address, stack: tags[STACK_TAG] ?? null }),
      done: (vm) => vm !== null,
    },
    created: { key: 'instances', noun: 'instance' },
  },
  update: {
    payload: payloadSchema,
    taskType: 'resize_vm',
    async run(ctx, { change, desired: d, payload, id }, sendTasks) {
      const { flavor_id, name, tags_patch } = payload;
      if (flavor_id !== undefined && flavor_id !== d.flavor_id)
        throw new PlanPayloadError(change, `payload.flavor_id "${flavor_id}" is not the desired flavor_id "${d.flavor_id}"`);
      const path = instancePath(d.project_id, d.region_id, String(id));
      if (name !== undefined || tags_patch !== undefined) {
        // Setting a name and a merge patch: repeating the PATCH is harmless.
        const body = { ...(name === undefined ? {} : { name }), ...(tags_patch === undefined ? {} : { tags: tags_patch }) };
        await ctx.api.request({ method: 'PATCH', path, body, retry: 'idempotent', signal: ctx.signal });
      }
      if (flavor_id === undefined) return;
      return sendTasks(
        { method: 'POST', path: `${path}/changeflavor`, body: { flavor_id } },
        { reread: () => getInstance(ctx, d, String(id)), done: (vm) => vm?.flavor.flavor_id === flavor_id },
      );
    },
  },
  delete: {
    request: ({ desired: d, id }) => ({ method: 'DELETE', path: instancePath(d.project_id, d.region_id, String(id)) }),
    tasks: {
      type: 'delete_vm',
      resend: true,
      reread: (ctx, { desired: d, id }) => readOrGone(() => getInstance(ctx, d, String(id))),
      done: (vm) => vm === null,
    },
  },
});

/**
 * Cloud instances: edgeform creates them (the v2 create: the flavor, a boot volume made from an
 * image or an existing volume, extra existing volumes, interfaces with their floating IPs,
 * security groups, an SSH key, base64 user data, tags with the ownership tags), resizes them
 * (changeflavor, only to a flavor `available_flavors` lists, a `resize_vm` task during which the
 * status is RESIZE; the new flavor can read as the old one for a short while after it FINISHED,
 * so apply re-reads until it shows), renames and retags them (PATCH), replaces them when a field
 * only a create sets differs (destroy, then create) and deletes them (`delete_vm`). A create's
 * flavor is checked against the region's flavors when it is planned, and again before it is sent. The instances of one project and
 * region are read together from the list (1,000 a page); blocks without their id with one list
 * of the instances tagged with the stack's name.
 */
export const cloudInstance: ResourceProvider<'cloud_instance'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'cloud_instance',

  read: readsWithFacts.read,
  groupRead: readsWithFacts.groupRead,
  import: instanceImport,

  async apply(ctx, change) {
    if (change.action === 'create') await checkRegionFlavor(ctx, change);
    return lifecycle.apply(ctx, change);
  },

  async beforeReplace(ctx, change) {
    await lifecycle.beforeReplace?.(ctx, change);
    if (change.desired.flavor_id !== KNOWN_AFTER_APPLY) await checkRegionFlavor(ctx, change);
  },

  create: {
    plan(desired, ref, facts) {
      const errors: PlanProblem[] =
        desired.instance_id !== undefined
          ? []
          : ref.stack === null
            ? [
                {
                  summary: "an instance without instance_id is created with ownership tags, which need the stack's name",
                  detail: 'Add "name: <stack name>" at the top of the stack.',
                },
              ]
            : ref.address.length > MAX_TAG_VALUE
              ? [{ summary: `the address is longer than ${MAX_TAG_VALUE} characters, the most a tag value (${ADDRESS_TAG}) can hold` }]
              : [];
      const flavors = facts?.region_flavors;
      // A flavor known only after apply is checked then, before the create is sent (checkRegionFlavor).
      if (Array.isArray(flavors) && desired.flavor_id !== KNOWN_AFTER_APPLY && !flavors.includes(desired.flavor_id)) {
        errors.push({
          field: 'flavor_id',
          summary: `flavor "${desired.flavor_id}" is not one of the flavors of region ${desired.region_id}${didYouMean(desired.flavor_id, flavors as string[])}`,
          detail: `Flavors an instance can be created with there: ${flavors.length > 0 ? flavors.join(', ') : 'none'}.`,
        });
      }
      const images = knownIn(facts, 'images');
      const keys = knownIn(facts, 'ssh_keys');
      const unknown = [
        images && notAmong(desired.image_id, images, { field: 'image_id', noun: 'image', where: `in region ${desired.region_id}` }),
        keys &&
          notAmong(desired.ssh_key_name, keys, {
            field: 'ssh_key_name',
            noun: 'SSH key',
            where: `in project ${desired.project_id}`,
            instead: 'To have edgeform add the key first, declare a cloud_ssh_key block and write ssh_key_name: ${cloud_ssh_key.NAME.name}.',
          }),
      ];
      errors.push(...unknown.filter((p): p is PlanProblem => p !== undefined && p !== null), ...placeProblems(desired, facts));
      const ownership = ownershipTags('cloud_instance', desired, ref);
      const { instance_id: _id, tags_policy: _policy, ensure: _ensure, project_id: _p, region_id: _r, user_data_file: _file, ...declared } = desired;
      const plan = createPlan({ project_id: desired.project_id, region_id: desired.region_id, ...declared }, 'instance_id', createBody(desired, ownership), {
        errors,
        notes: [ownershipNote(ownership)],
      });
      // What the platform decides: the addresses (a floating one only where an interface asks for it).
      const addresses: Record<string, unknown> = { fixed_ip_address: KNOWN_AFTER_APPLY };
      if (desired.interfaces?.some((x) => x.floating_ip_id !== undefined)) addresses.floating_ip_address = KNOWN_AFTER_APPLY;
      return { ...plan, after: { ...plan.after, ...addresses } };
    },
    identity: (desired, ref) => (desired.instance_id === undefined ? ownershipIdentity(ref.stack) : null),
  },

  ownership: {
    owner: (state, desired, seal) => judgedOwner((state.tags as LiveTag[] | undefined) ?? [], 'cloud_instance', desired, seal),
    place: (d) => `${d.project_id}/${d.region_id}`,
    claim: (desired, state, ref) => claimInstance(planInstance(desired, state), desired, (state.tags as LiveTag[] | undefined) ?? [], ref),
    async list(ctx, declared) {
      const places = new Map(declared.map((d) => [`${d.project_id}/${d.region_id}`, { project_id: d.project_id, region_id: d.region_id }]));
      const owned: OwnedResource<'cloud_instance'>[] = [];
      for (const [place, scope] of places) {
        // The instance list has no filter by tag key: the place's whole list, kept where the tags name a stack.
        for (const vm of await listAll(ctx, instanceList, scope, (x) => x.id)) {
          if (ownerOf(vm.tags) === null) continue;
          const owner = must(judgedOwner(vm.tags, 'cloud_instance', scope, ctx.seal), 'the owner of an owned instance');
          owned.push({
            ...owner,
            ...unprovenByTags(owner),
            place,
            desired: { ...scope, instance_id: vm.id, flavor_id: vm.flavor.flavor_id, tags_policy: 'authoritative', ensure: 'absent' },
            observation: { exists: true, state: stateOf(vm), lockTaskId: vm.task_id } satisfies Observation,
          });
        }
      }
      return owned;
    },
  },

  summarize: (state) => ({ instance_id: state.instance_id, name: state.name, flavor_id: state.flavor_id, tags: userTags((state.tags as LiveTag[] | undefined) ?? []) }),

  plan: planInstance,
};

/** Refuses, before anything is sent, a create whose flavor is not one of its region's (PlanPayloadError). */
async function checkRegionFlavor(ctx: ProviderContext, change: ResourceChange<'cloud_instance'>): Promise<void> {
  const d = change.desired;
  const flavors = await regionFlavors(ctx, d);
  if (!flavors.includes(d.flavor_id)) {
    throw new PlanPayloadError(change, `flavor "${d.flavor_id}" is not one of the flavors of region ${d.region_id}: ${flavors.length > 0 ? flavors.join(', ') : 'none'}`);
  }
}

/**
 * The diff of an instance turned into a move: the same changes, and a PATCH whose tags merge
 * patch also writes `ref`'s ownership tags when the live ones name another stack or address.
 */
function claimInstance(planned: ProviderPlan, desired: Desired, live: readonly LiveTag[], ref: ResourceRef): ProviderPlan {
  if (planned.errors.length > 0 || planned.action === 'replace') return planned;
  const ownership = ownershipPatch(live, 'cloud_instance', desired, ref);
  if (ownership === undefined) return planned;
  const parsed = payloadSchema.safeParse(planned.payload ?? {});
  const payload = parsed.success ? parsed.data : {};
  const patch = payload.tags_patch;
  const base = patch === null ? Object.fromEntries(Object.keys(userTags(live)).map((key) => [key, null])) : { ...patch };
  return {
    ...planned,
    action: 'update',
    payload: { ...payload, tags_patch: { ...base, ...ownership.patch } },
    notes: [...planned.notes.filter(() => patch !== null), ownership.note],
  };
}
