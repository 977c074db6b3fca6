import type { Diagnostic, SourceRange } from '../config/diagnostics.js';
import type { Block, ResourceBlock, Stack } from '../config/types.js';
import { RESOURCE_KINDS, type ResourceAttributes, type ResourceType } from '../kinds/registry.js';
import type { CheckOutcome, Observation, OwnedRead, OwnedResource, ProviderPlan, ReadResult, ResourceProvider, ResourceRef } from '../kinds/provider.js';
import { fingerprint } from './fingerprint.js';
import { buildGraph, topologicalOrder } from './graph.js';
import { PLAN_FORMAT_VERSION, type ChangeFields, type CheckResult, type Plan, type ResourceChange } from './types.js';

/** The pure parts of one kind's provider, which is all the planner needs of it. */
export type ResourcePlanner<T extends ResourceType> = Pick<ResourceProvider<T>, 'plan' | 'summarize' | 'idField' | 'create'>;

/** The pure parts of each kind's provider, by type. */
export type ResourcePlanners = { [T in ResourceType]: ResourcePlanner<T> };

/** Diagnostic code of a resource that should exist but does not (drift counts it as drift). */
export const RESOURCE_MISSING = 'resource-missing';

/** Everything a plan is made from; no I/O happens in buildPlan. */
export interface PlanInput {
  stack: Stack;
  /** Blocks to plan (after --target selection); every block when undefined. */
  selected?: ReadonlySet<string>;
  reads: ReadonlyMap<string, ReadResult>;
  checks: ReadonlyMap<string, CheckOutcome>;
  /** What carries the stack's ownership tags (prune: true): those no block declares are destroyed. */
  owned?: readonly OwnedRead[];
  planners: ResourcePlanners;
  baseUrl: string;
  createdAt: string;
  edgeformVersion: string;
  /** Diagnostics found before reading (e.g. unknown --target); they make the plan errored. */
  diagnostics?: Diagnostic[];
}

/**
 * Builds the plan: a pure function of the stack and what was observed. Resources whose read
 * failed or whose desired state cannot be reached become error diagnostics with their address
 * and location; every other resource is still planned.
 */
export function buildPlan(input: PlanInput): Plan {
  const { stack } = input;
  const blocks = new Map<string, Block>([...stack.resources, ...stack.checks].map((b) => [b.address, b]));
  const order = topologicalOrder(buildGraph(blocks.values())).filter((a) => !input.selected || input.selected.has(a));
  const diagnostics: Diagnostic[] = [...(input.diagnostics ?? [])];
  const resourceChanges: ResourceChange[] = [];
  const checks: CheckResult[] = [];
  const checkResults = new Map<string, CheckResult>();
  const stackName = stack.name ?? null;
  // Pruned resources come first: what the stack gave up is destroyed before anything else.
  const pruned = planPrune(stack, input.owned ?? [], input.planners, diagnostics);
  if (stack.prune && input.selected) {
    diagnostics.push({ severity: 'warning', code: 'prune-skipped', summary: 'prune: true is not applied with --target: nothing is pruned in a targeted plan' });
  }
  resourceChanges.push(...pruned);

  for (const address of order) {
    const block = blocks.get(address)!;
    if (block.kind === 'check') {
      const outcome = input.checks.get(address) ?? { status: 'error', message: 'the check was not evaluated' };
      const result: CheckResult = { address, type: block.type, name: block.name, action: 'read', ...outcome, desired: block.attributes, depends_on: block.dependsOn };
      checks.push(result);
      checkResults.set(address, result);
      if (outcome.status === 'error') diagnostics.push(blockError(block, `check ${address} could not be evaluated: ${outcome.message}`));
      continue;
    }
    const read = input.reads.get(address);
    if (!read) {
      diagnostics.push(blockError(block, `${address} was not read`));
      continue;
    }
    if (!read.ok) {
      diagnostics.push({ ...blockError(block, `reading ${address} failed: ${read.error.summary}`), detail: read.error.detail });
      continue;
    }
    const planned = planResource(block, read.observation, input.planners, failingCheckWarnings(block, checkResults), { address: block.address, stack: stackName });
    diagnostics.push(...planned.diagnostics);
    if (planned.change) resourceChanges.push(planned.change);
  }

  const count = (...actions: string[]) => resourceChanges.filter((c) => actions.includes(c.action)).length;
  const summary = { add: count('create', 'replace'), change: count('update'), destroy: count('delete', 'replace'), read: checks.length };
  const errored = diagnostics.some((d) => d.severity === 'error');
  return {
    format_version: PLAN_FORMAT_VERSION,
    edgeform_version: input.edgeformVersion,
    created_at: input.createdAt,
    base_url: input.baseUrl,
    stack: stackRecord(stack.sources, stack, stack.name),
    resource_changes: resourceChanges,
    checks,
    diagnostics,
    summary,
    applyable: !errored && summary.add + summary.change + summary.destroy > 0,
    errored,
  };
}

/**
 * A plan's record of its stack. The digest (the canonical JSON of the whole stack, hashed) is
 * read from `from` when first asked for: a plan shown and not saved never needs it.
 */
export function stackRecord(sources: string[], from: { readonly digest: string }, name: string | null | undefined): Plan['stack'] {
  return {
    sources,
    get digest() {
      return from.digest;
    },
    ...(name === undefined ? {} : { name }),
  };
}

function planResource<K extends ResourceType>(
  block: ResourceBlock<K>,
  observed: Observation,
  planners: ResourcePlanners,
  checkWarnings: string[],
  ref: ResourceRef,
): { change?: ResourceChange<K>; diagnostics: Diagnostic[] } {
  const planner: ResourcePlanner<K> = planners[block.type];
  const desired = block.attributes;
  const lockTaskId = observed.exists ? (observed.lockTaskId ?? null) : null;
  const identity = observed.exists && observed.foundBy !== undefined ? observed.foundBy : (planner.create?.identity(desired, ref) ?? undefined);
  const named = (desired as Record<string, unknown>)[planner.idField] !== undefined;
  // Each change is written out as one object literal, not spread from a shared base: spreading
  // then adding a dozen fields cost more than the rest of planning a resource.

  if (desired.ensure === 'absent') {
    const before = observedFields(planner, desired, observed);
    return {
      diagnostics: [],
      change: {
        address: block.address,
        type: block.type,
        name: block.name,
        desired,
        depends_on: block.dependsOn,
        lock_task_id: lockTaskId,
        action: observed.exists ? 'delete' : 'no-op',
        before,
        after: null,
        changes: [],
        fingerprint: fingerprint(before),
        warnings: [...lockWarnings(lockTaskId), ...checkWarnings],
        notes: observed.exists ? [] : ['already absent'],
        ...(identity === undefined ? {} : { identity }),
      },
    };
  }

  if (!observed.exists) {
    if (planner.create && !named) return planCreate(block, planner.create.plan(desired, ref), identity, checkWarnings);
    const id = desired[planner.idField];
    const detail = planner.create
      ? `Check the id, or remove ${planner.idField} to have edgeform create the ${block.type} (found again by its ${describeKey(block.type)}).`
      : `edgeform cannot create a ${block.type} (the kind is adopt-only): check the id, or remove the block if the resource was deleted on purpose.`;
    return {
      diagnostics: [
        {
          ...blockError(block, `${block.address}: ${block.type} ${JSON.stringify(id)} does not exist; edgeform adopts existing resources by id`, planner.idField, detail),
          code: RESOURCE_MISSING,
        },
      ],
    };
  }

  const result = planner.plan(desired, observed.state);
  if (result.errors.length > 0) {
    return { diagnostics: result.errors.map((e) => blockError(block, `${block.address}: ${e.summary}`, e.field, e.detail)) };
  }
  if (result.action === 'replace') {
    if (!planner.create) return { diagnostics: [blockError(block, `${block.address}: a field that cannot change in place differs, and edgeform cannot create a ${block.type}`)] };
    const create = planner.create.plan(desired, ref);
    if (create.errors.length > 0) return { diagnostics: create.errors.map((e) => blockError(block, `${block.address}: ${e.summary}`, e.field, e.detail)) };
    const forced = result.changes.filter((c) => c.forces_replacement).map((c) => c.path.join('.'));
    // The resource is destroyed and created again: it ends where a create would, with its payload.
    const notes = [`${forced.join(', ')} cannot be changed in place: the ${block.type} is destroyed and created again`, ...result.notes];
    return { diagnostics: [], change: changeOf(block, { ...result, after: create.after, payload: create.payload, notes }, result.before, lockTaskId, checkWarnings, identity) };
  }
  return { diagnostics: [], change: changeOf(block, result, result.before, lockTaskId, checkWarnings, identity) };
}

/** The change of a block whose resource does not exist yet and that names no id: create it. */
function planCreate<K extends ResourceType>(
  block: ResourceBlock<K>,
  create: ProviderPlan,
  identity: string | undefined,
  checkWarnings: string[],
): { change?: ResourceChange<K>; diagnostics: Diagnostic[] } {
  if (create.errors.length > 0) return { diagnostics: create.errors.map((e) => blockError(block, `${block.address}: ${e.summary}`, e.field, e.detail)) };
  return { diagnostics: [], change: changeOf(block, create, null, null, checkWarnings, identity) };
}

/**
 * The planned change of a block from its provider's plan (create, update, replace or no-op):
 * `before` is what was observed (null for a create), and the warnings are the lock's, the
 * failing checks' and the provider's. Written out as one object literal, not spread from a
 * shared base: spreading then adding a dozen fields cost more than the rest of planning a resource.
 */
function changeOf<K extends ResourceType>(
  block: ResourceBlock<K>,
  planned: ProviderPlan,
  before: Record<string, unknown> | null,
  lockTaskId: string | null,
  checkWarnings: string[],
  identity: string | undefined,
): ResourceChange<K> {
  const change: ChangeFields & { type: K; desired: ResourceAttributes[K] } = {
    address: block.address,
    type: block.type,
    name: block.name,
    desired: block.attributes,
    depends_on: block.dependsOn,
    lock_task_id: lockTaskId,
    action: planned.action,
    before,
    after: planned.after,
    changes: planned.changes,
    unchanged_elements: planned.unchanged_elements,
    payload: planned.payload,
    fingerprint: fingerprint(before),
    warnings: [...lockWarnings(lockTaskId), ...checkWarnings, ...planned.warnings],
    notes: planned.notes,
    ...(identity === undefined ? {} : { identity }),
  };
  return change as ResourceChange<K>;
}

/** How a creatable kind's blocks are found again without an id, for messages. */
function describeKey(type: ResourceType): string {
  const key = RESOURCE_KINDS[type].create?.key;
  if (key === undefined) return 'id';
  return key === 'owner' ? 'ownership tags (edgeform-stack, edgeform-address)' : key.join(' and ');
}

/**
 * The destroys of prune: every resource carrying the stack's ownership tags whose address no
 * block of the stack declares. A listing that failed is an error (prune cannot say what it
 * would leave behind); a mark naming an address of another kind, or one declared already, is
 * never destroyed (a warning says why).
 */
function planPrune(stack: Stack, owned: readonly OwnedRead[], planners: ResourcePlanners, diagnostics: Diagnostic[]): ResourceChange[] {
  const declared = new Set(stack.resources.map((b) => b.address));
  const seen = new Set<string>();
  const changes: ResourceChange[] = [];
  for (const listing of owned) {
    if (!listing.ok) {
      diagnostics.push({
        severity: 'error',
        code: 'plan-error',
        summary: `prune: listing the ${listing.type} resources of stack "${stack.name}" failed: ${listing.error.summary}`,
      });
      continue;
    }
    for (const resource of listing.resources) {
      if (declared.has(resource.address)) continue;
      const [type, ...rest] = resource.address.split('.');
      if (type !== listing.type || rest.length === 0 || seen.has(resource.address)) {
        diagnostics.push({
          severity: 'warning',
          code: 'prune-skipped',
          summary: `prune: a ${listing.type} carries stack "${stack.name}"'s ownership tags with address "${resource.address}", ${seen.has(resource.address) ? 'like another one' : 'which is not an address of its kind'}; it is left alone`,
        });
        continue;
      }
      seen.add(resource.address);
      changes.push(prunedChange(listing.type, resource, planners));
    }
  }
  return changes;
}

function prunedChange<K extends ResourceType>(type: K, resource: OwnedResource, planners: ResourcePlanners): ResourceChange {
  const planner: ResourcePlanner<K> = planners[type];
  const before = planner.summarize(resource.observation.state);
  const change = {
    address: resource.address,
    type,
    name: resource.address.slice(type.length + 1),
    desired: resource.desired as ResourceAttributes[K],
    depends_on: [],
    lock_task_id: resource.observation.lockTaskId ?? null,
    action: 'delete',
    before,
    after: null,
    changes: [],
    fingerprint: fingerprint(before),
    warnings: lockWarnings(resource.observation.lockTaskId),
    notes: ["no block declares it any more, and it carries this stack's ownership tags (prune: true)"],
    pruned: true,
  } satisfies ChangeFields & { type: K; desired: ResourceAttributes[K] };
  return change as ResourceChange;
}

/**
 * The observed fields a plan fingerprints for one resource: the provider's summary of a
 * resource to delete, its diff's `before` otherwise, null when it does not exist. Apply calls
 * this on a fresh read to tell whether a saved plan is stale.
 */
export function observedFields<K extends ResourceType>(planner: ResourcePlanner<K>, desired: ResourceAttributes[K], observed: Observation): Record<string, unknown> | null {
  if (!observed.exists) return null;
  if (desired.ensure === 'absent') return planner.summarize(observed.state);
  return planner.plan(desired, observed.state).before;
}

function lockWarnings(lockTaskId: string | null | undefined): string[] {
  return lockTaskId ? [`locked by running platform task ${lockTaskId}; apply waits for it to finish before changing anything`] : [];
}

/**
 * Warnings for a resource whose depends_on names a check that did not pass: apply skips it
 * (the check is a gate), so the plan says so next to the change. Checks come before their
 * dependants in plan order, so their results are known here.
 */
function failingCheckWarnings(block: ResourceBlock, checks: ReadonlyMap<string, CheckResult>): string[] {
  return block.dependsOn.flatMap((address) => {
    const check = checks.get(address);
    if (!check || check.status === 'pass') return [];
    const why = check.status === 'fail' ? 'which is failing' : 'which could not be evaluated';
    return [`depends on check ${address}, ${why}; apply will skip this resource`];
  });
}

function blockError(block: Pick<Block, 'address' | 'range' | 'fieldSources'>, summary: string, field?: string, detail?: string): Diagnostic {
  const range: SourceRange | undefined = (field && block.fieldSources[field]?.range) || block.range;
  return { severity: 'error', code: 'plan-error', summary, detail, address: block.address, range };
}
