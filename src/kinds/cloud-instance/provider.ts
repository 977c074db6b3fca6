import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { PlanPayloadError } from '../../errors.js';
import { fingerprint } from '../../plan/fingerprint.js';
import { KNOWN_AFTER_APPLY, type FieldChange } from '../../plan/types.js';
import { createPlan, onlyMatch } from '../create.js';
import { ADDRESS_TAG, STACK_TAG } from '../fields.js';
import { fetchListPage, listAll, listEndpointOf } from '../kind-list.js';
import type { GroupRead, MemberRead, Observation, Owner, OwnedResource, PlanProblem, ProviderContext, ProviderPlan, ResourceProvider, ResourceRef } from '../provider.js';
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
  return onlyMatch(matches, (vm) => vm.id, { type: 'cloud_instance', identity: `${ownershipIdentity(ref.stack)} (${ADDRESS_TAG} ${ref.address})`, idField: 'instance_id' });
}

/** The ownership tags of an instance's tags (user tags only), or null without `edgeform-stack`. */
function ownerOf(tags: readonly LiveTag[]): Owner | null {
  const value = (key: string) => tags.find((t) => t.key === key && !t.read_only)?.value;
  const stack = value(STACK_TAG);
  return stack === undefined ? null : { stack, address: value(ADDRESS_TAG) ?? '' };
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
        { type: 'cloud_instance', identity: `${ownershipIdentity(ref.stack)} (${ADDRESS_TAG} ${ref.address})`, idField: 'instance_id' },
      );
      return vm === null ? null : { item: vm, foundBy: ownershipIdentity(ref.stack) };
    },
    list: {
      paging: instanceTaggedList.paging,
      canMatch: ([ref]) => ref?.stack !== null && ref?.stack !== undefined,
      describe: ([d]) => `GET ${instanceList.path(d)}`,
      fetchPage: (ctx, [d], [ref], page) =>
        fetchListPage(ctx, instanceTaggedList, { project_id: d.project_id, region_id: d.region_id, tagKeyValue: JSON.stringify({ [STACK_TAG]: ref!.stack }) }, page),
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
 * A block edgeform would create, read as absent, with the region's flavors it may be created with
 * (read once a run per project and region), for the create's plan to check its flavor against.
 */
async function withRegionFlavors(ctx: ProviderContext, d: Desired, observation: Observation): Promise<Observation> {
  if (observation.exists || d.instance_id !== undefined || d.ensure === 'absent') return observation;
  return { exists: false, facts: { region_flavors: await regionFlavors(ctx, d) } };
}

/** The grouped read, each absent block that would be created with the region's flavors (a failed flavor read fails the member). */
const groupRead: GroupRead<'cloud_instance'> = {
  ...reads.groupRead,
  async read(ctx, members, refs) {
    const results = await reads.groupRead.read(ctx, members, refs);
    return Promise.all(
      results.map(async (result, i): Promise<MemberRead> => {
        if (!result.ok) return result;
        try {
          return { ok: true, observation: await withRegionFlavors(ctx, members[i]!, result.observation) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  },
};

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
  idField: 'instance_id',
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

  read: async (ctx, desired, ref) => withRegionFlavors(ctx, desired, await reads.read(ctx, desired, ref)),
  groupRead,
  import: instanceImport,

  async apply(ctx, change) {
    if (change.action === 'create' || change.action === 'replace') {
      const d = change.desired;
      const flavors = await regionFlavors(ctx, d);
      if (!flavors.includes(d.flavor_id)) {
        throw new PlanPayloadError(change, `flavor "${d.flavor_id}" is not one of the flavors of region ${d.region_id}: ${flavors.length > 0 ? flavors.join(', ') : 'none'}`);
      }
    }
    return lifecycle.apply(ctx, change);
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
      if (Array.isArray(flavors) && !flavors.includes(desired.flavor_id)) {
        errors.push({
          field: 'flavor_id',
          summary: `flavor "${desired.flavor_id}" is not one of the flavors of region ${desired.region_id}`,
          detail: `Flavors an instance can be created with there: ${flavors.length > 0 ? flavors.join(', ') : 'none'}.`,
        });
      }
      const ownership = { [STACK_TAG]: ref.stack ?? '', [ADDRESS_TAG]: ref.address };
      const { instance_id: _id, tags_policy: _policy, ensure: _ensure, project_id: _p, region_id: _r, user_data_file: _file, ...declared } = desired;
      const plan = createPlan({ project_id: desired.project_id, region_id: desired.region_id, ...declared }, 'instance_id', createBody(desired, ownership), {
        errors,
        notes: [`the create request tags it ${STACK_TAG}=${ownership[STACK_TAG]}, ${ADDRESS_TAG}=${ref.address} (ownership tags, never shown as drift)`],
      });
      // What the platform decides: the addresses (a floating one only where an interface asks for it).
      const addresses: Record<string, unknown> = { fixed_ip_address: KNOWN_AFTER_APPLY };
      if (desired.interfaces?.some((x) => x.floating_ip_id !== undefined)) addresses.floating_ip_address = KNOWN_AFTER_APPLY;
      return { ...plan, after: { ...plan.after, ...addresses } };
    },
    identity: (desired, ref) => (desired.instance_id === undefined ? ownershipIdentity(ref.stack) : null),
  },

  ownership: {
    owner: (state) => ownerOf((state.tags as LiveTag[] | undefined) ?? []),
    place: (d) => `${d.project_id}/${d.region_id}`,
    claim: (desired, state, ref) => claimInstance(planInstance(desired, state), (state.tags as LiveTag[] | undefined) ?? [], ref),
    async list(ctx, declared) {
      const places = new Map(declared.map((d) => [`${d.project_id}/${d.region_id}`, { project_id: d.project_id, region_id: d.region_id }]));
      const owned: OwnedResource<'cloud_instance'>[] = [];
      for (const [place, scope] of places) {
        // The instance list has no filter by tag key: the place's whole list, kept where the tags name a stack.
        for (const vm of await listAll(ctx, instanceList, scope, (x) => x.id)) {
          const owner = ownerOf(vm.tags);
          if (owner === null) continue;
          owned.push({
            ...owner,
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

/**
 * The diff of an instance turned into a move: the same changes, and a PATCH whose tags merge
 * patch also writes `ref`'s ownership tags when the live ones name another stack or address.
 */
function claimInstance(planned: ProviderPlan, live: readonly LiveTag[], ref: ResourceRef): ProviderPlan {
  const current = ownerOf(live);
  if (planned.errors.length > 0 || planned.action === 'replace' || ref.stack === null || (current?.stack === ref.stack && current.address === ref.address)) return planned;
  const parsed = payloadSchema.safeParse(planned.payload ?? {});
  const payload = parsed.success ? parsed.data : {};
  const patch = payload.tags_patch;
  const base = patch === null ? Object.fromEntries(Object.keys(userTags(live)).map((key) => [key, null])) : { ...patch };
  const from = current === null ? 'none' : `${STACK_TAG}=${current.stack}, ${ADDRESS_TAG}=${current.address}`;
  return {
    ...planned,
    action: 'update',
    payload: { ...payload, tags_patch: { ...base, [STACK_TAG]: ref.stack, [ADDRESS_TAG]: ref.address } },
    notes: [
      ...planned.notes.filter(() => patch !== null),
      `the ownership tags are rewritten: ${from} -> ${STACK_TAG}=${ref.stack}, ${ADDRESS_TAG}=${ref.address}; nothing is created or destroyed`,
    ],
  };
}
