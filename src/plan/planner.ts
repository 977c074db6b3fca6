import type { Diagnostic, SourceRange } from '../config/diagnostics.js';
import type { Block, ResourceBlock, Stack } from '../config/types.js';
import { RESOURCE_KINDS, type ResourceAttributes, type ResourceType } from '../kinds/registry.js';
import type { OwnerSeal } from '../kinds/owner-seal.js';
import { fingerprint } from '../model/fingerprint.js';
import { buildGraph, topologicalOrder } from '../model/graph.js';
import { formatPath, referenceAddress, templateTargets } from '../model/references.js';
import { parseResolvedAttributes, pendingSources, resolveReferences, unknownsOf, type ReferenceSources } from './references.js';
import {
  describeReplaced,
  PLAN_FORMAT_VERSION,
  type ChangeFields,
  type CheckOutcome,
  type CheckResult,
  type Observation,
  type OwnedRead,
  type OwnedResource,
  type OwnershipRules,
  type PendingReference,
  type Plan,
  type ProviderPlan,
  type ReadResult,
  type ResourceChange,
  type ResourcePlanner,
  type ResourceRef,
} from './types.js';

/** Diagnostic code of a resource whose owner mark does not prove it the stack's (drift reports it). */
export const OWNERSHIP_UNPROVEN = 'ownership-unproven';

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
  /**
   * What carries ownership tags (of any stack) in the places of a kind's blocks, by kind, where
   * it was listed: with prune: true, this stack's that no block declares are destroyed; a move
   * finds its old resource there; a block that would be created is warned of a likely rename.
   */
  owned?: readonly OwnedRead[];
  planners: ResourcePlanners;
  baseUrl: string;
  createdAt: string;
  edgeformVersion: string;
  /** Diagnostics found before reading (e.g. unknown --target); they make the plan errored. */
  diagnostics?: Diagnostic[];
  /** `--resend-sensitive`: the resource blocks whose sensitive values are sent again (see PlanOptions). */
  resendSensitive?: ReadonlySet<string>;
  /** The run's owner seal (EDGEFORM_OWNER_KEY): creates and claims mark with it, owner marks are judged with it. Absent: unkeyed. */
  seal?: OwnerSeal;
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
  const moves = new Set(stack.resources.flatMap((b) => (b.movedFrom ? [`${b.movedFrom.stack}/${b.movedFrom.address}`] : [])));
  const owners: OwnershipContext = {
    listings: new Map((input.owned ?? []).map((listing) => [listing.type, listing])),
    declared: new Set(stack.resources.map((b) => b.address)),
    moves,
    stack,
    otherStacks: new Map(),
  };
  // Pruned resources come first: what the stack gave up is destroyed before anything else.
  const pruned = stack.prune && !input.selected ? planPrune(stack, input.owned ?? [], input.planners, diagnostics, moves) : [];
  if (stack.prune && input.selected) {
    diagnostics.push({ severity: 'warning', code: 'prune-skipped', summary: 'prune: true is not applied with --target: nothing is pruned in a targeted plan' });
  }
  resourceChanges.push(...pruned);
  // Each planned change by address, for the references of the blocks planned after it.
  const changesByAddress = new Map<string, ResourceChange>();
  // What a reference reads of a block: what was read of it, or for a block moved from another
  // address, the resource it was moved from (its id is known: references resolve to it).
  const movedReads = new Map<string, ReadResult>();
  const reads: Pick<ReadonlyMap<string, ReadResult>, 'get'> = { get: (a) => movedReads.get(a) ?? input.reads.get(a) };
  const position = new Map(order.map((a, i) => [a, i]));

  const run: PlanRun = { input, diagnostics, resourceChanges, checks, checkResults, owners, changesByAddress, movedReads, reads, position, stackName };
  for (const address of order) {
    const block = blocks.get(address);
    if (block?.kind === 'check') planCheck(run, block);
    else if (block !== undefined) planBlock(run, block);
  }

  diagnostics.push(...stackRenameWarnings(owners));
  if (input.selected) diagnostics.push(...leftOnReplaced(stack, input.selected, resourceChanges));

  for (const address of input.resendSensitive ?? []) {
    const block = blocks.get(address);
    if (block?.kind !== 'resource') diagnostics.push({ severity: 'error', code: 'unknown-target', summary: `--resend-sensitive ${address}: the stack declares no such resource` });
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
    applyable: !errored && (summary.add + summary.change + summary.destroy > 0 || resourceChanges.some((c) => c.follow_up !== undefined)),
    errored,
  };
}

/** What buildPlan's steps share while it plans the blocks in order (see planBlock). */
interface PlanRun {
  readonly input: PlanInput;
  readonly diagnostics: Diagnostic[];
  readonly resourceChanges: ResourceChange[];
  readonly checks: CheckResult[];
  readonly checkResults: Map<string, CheckResult>;
  readonly owners: OwnershipContext;
  /** Each planned change by address, for the references of the blocks planned after it. */
  readonly changesByAddress: Map<string, ResourceChange>;
  /** What was read of a block moved from another address: the resource it was moved from. */
  readonly movedReads: Map<string, ReadResult>;
  /** What a reference reads of a block: what was read of it, or for a moved block, the resource it was moved from. */
  readonly reads: Pick<ReadonlyMap<string, ReadResult>, 'get'>;
  /** Each block's place in plan order. */
  readonly position: ReadonlyMap<string, number>;
  readonly stackName: string | null;
}

/** A check's result, as evaluated before planning; one that could not be evaluated is an error. */
function planCheck(run: PlanRun, block: Extract<Block, { kind: 'check' }>): void {
  const { address } = block;
  const outcome = run.input.checks.get(address) ?? { status: 'error', message: 'the check was not evaluated' };
  const result: CheckResult = { address, type: block.type, name: block.name, action: 'read', ...outcome, desired: block.attributes, depends_on: block.dependsOn };
  run.checks.push(result);
  run.checkResults.set(address, result);
  if (outcome.status === 'error') run.diagnostics.push(blockError(block, `check ${address} could not be evaluated: ${outcome.message}`));
}

/**
 * One resource block's change (or its diagnostics): its references resolved where the plan knows
 * them, planned against what was read, seen against the replacements it reads.
 */
function planBlock(run: PlanRun, block: ResourceBlock): void {
  const { input, diagnostics, changesByAddress, reads } = run;
  const { address } = block;
  const stack = input.stack;
  const read = input.reads.get(address);
  if (!read) {
    diagnostics.push(blockError(block, `${address} was not read`));
    return;
  }
  if (!read.ok) {
    diagnostics.push({ ...blockError(block, `reading ${address} failed: ${read.error.summary}`), detail: read.error.detail });
    return;
  }
  const resolved = block.references ? resolveBlockReferences(block, reads, changesByAddress) : { block, pending: [], notes: [], diagnostics: [] };
  if (resolved.diagnostics.length > 0) {
    diagnostics.push(...resolved.diagnostics);
    return;
  }
  const resend = input.resendSensitive?.has(address) === true;
  const warnings = failingCheckWarnings(block, run.checkResults);
  const ref = { address: block.address, stack: run.stackName, prune: stack.prune, ...(input.seal ? { seal: input.seal } : {}) };
  const planOne = (b: ResourceBlock) => planResource(b, read.observation, input.planners, warnings, ref, run.owners, resend);
  const planned = attributeReplacement(block, resolved.pending, planOne(resolved.block), {
    replan: (asIf) => {
      const again = resolveBlockReferences(block, reads, asIf);
      return again.diagnostics.length > 0 ? undefined : planOne(again.block);
    },
    changes: changesByAddress,
    position: run.position,
    planner: input.planners[block.type] as ResourcePlanner<ResourceType>,
  });
  if (planned.moved) run.movedReads.set(address, { ok: true, observation: planned.moved });
  diagnostics.push(...planned.diagnostics);
  if (resend && planned.change && planned.change.action !== 'create' && !planned.change.sensitive) {
    diagnostics.push(
      blockError(
        block,
        `${address}: --resend-sensitive names it, but it sends no sensitive values (${planned.change.action === 'delete' ? 'it is deleted' : 'its block declares none'})`,
      ),
    );
  }
  if (planned.change) {
    // A delete waits on none of its references: they order it before what it refers to, and one
    // naming a block deleted after it reads that block as observed (see ReferenceSources.deleting).
    const change = withFollowUp(
      resolved.pending.length === 0 || planned.change.action === 'delete' ? planned.change : withPendingReferences(planned.change, resolved.pending, resolved.notes),
      resolved.block,
      read.observation,
      input.planners,
    );
    run.resourceChanges.push(change);
    changesByAddress.set(address, change);
  }
}

/**
 * A block with its references resolved where the plan knows their values (see
 * resolveReferences); a reference whose block exists without a value for its field, and a
 * resolved value the kind's schema refuses, are plan errors at the reference. The blocks it reads come before it in plan order, so their changes are known.
 */
function resolveBlockReferences(
  block: ResourceBlock,
  reads: ReferenceSources['reads'],
  changes: ReferenceSources['changes'],
): { block: ResourceBlock; pending: PendingReference[]; notes: string[]; diagnostics: Diagnostic[] } {
  const references = block.references ?? [];
  const deleting = (block.attributes as { ensure?: string }).ensure === 'absent';
  const resolved = resolveReferences(block.attributes as Record<string, unknown>, references, { reads, changes, deleting });
  const diagnostics: Diagnostic[] = resolved.missing.map(({ reference, address, field }) => ({
    severity: 'error',
    code: 'plan-error',
    summary: `${block.address}: ${formatPath(reference.path)}: ${reference.template} has no value: ${address} exists and this apply does not change it, but the platform holds no value for its ${field}`,
    address: block.address,
    range: reference.range,
  }));
  if (diagnostics.length > 0) return { block, pending: [], notes: [], diagnostics };
  const checked = RESOURCE_KINDS[block.type].schema.safeParse(resolved.attributes);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const reference = references.find((r) => r.path.every((segment, i) => issue.path[i] === segment));
      // A pending reference's placeholder is checked once its value is known (by the provider, before sending).
      if (reference === undefined || resolved.pending.some((p) => p.path === reference.path)) continue;
      diagnostics.push({
        severity: 'error',
        code: 'plan-error',
        summary: `${block.address}: ${formatPath(reference.path)}: ${reference.template} is ${JSON.stringify(getAt(resolved.attributes, reference.path))}, which ${issue.message}`,
        address: block.address,
        range: reference.range,
      });
    }
  }
  // Every reference known: the block as if they had been written out (its defaults filled in).
  const attributes = resolved.pending.length === 0 && diagnostics.length === 0 ? parseResolvedAttributes(block.type, resolved.attributes) : resolved.attributes;
  return { block: { ...block, attributes } as ResourceBlock, pending: resolved.pending, notes: resolved.notes, diagnostics };
}

function getAt(root: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>((at, segment) => (at as Record<string | number, unknown> | undefined)?.[segment], root);
}

/** A change with its block's follow-up (ResourceProvider.followUp), when the kind plans one; none for a delete. */
function withFollowUp<K extends ResourceType>(change: ResourceChange, block: ResourceBlock<K>, observed: Observation, planners: ResourcePlanners): ResourceChange {
  const planner: ResourcePlanner<K> = planners[block.type];
  if (planner.followUp === undefined || change.action === 'delete') return change;
  const followUp = planner.followUp.plan(block.attributes, observed, change.action);
  return followUp === null ? change : { ...change, follow_up: followUp };
}

/**
 * The errors of a targeted plan that replaces a block another block of the stack reads, which
 * the --target selection leaves out: that block would stay on (or point at) what is destroyed,
 * and the platform refuses to delete what is still in use. Each names both and the target to add.
 */
function leftOnReplaced(stack: Stack, selected: ReadonlySet<string>, changes: readonly ResourceChange[]): Diagnostic[] {
  const replaced = new Set(changes.filter((c) => c.action === 'replace').map((c) => c.address));
  if (replaced.size === 0) return [];
  const out: Diagnostic[] = [];
  for (const block of stack.resources) {
    if (selected.has(block.address)) continue;
    for (const reference of block.references ?? []) {
      const read = templateTargets(reference.parts)
        .map(referenceAddress)
        .find((a) => replaced.has(a));
      if (read === undefined) continue;
      out.push({
        severity: 'error',
        code: 'plan-error',
        summary: `${read} is replaced, but ${block.address}, which reads it (${formatPath(reference.path)}), is not in the --target selection: it would be left on what is destroyed`,
        detail: `Add --target ${block.address} (it is then planned with ${read}'s new values), or plan without --target.`,
        address: block.address,
        range: reference.range,
      });
      break;
    }
  }
  return out;
}

/** What attributeReplacement needs besides the block and its plan. */
interface ReplacementContext {
  /** The block planned again with its references resolved through `changes` (undefined: they do not resolve). */
  replan(changes: ReferenceSources['changes']): PlannedBlock | undefined;
  /** The changes planned so far, by address. */
  changes: ReadonlyMap<string, ResourceChange>;
  /** Each block's place in plan order. */
  position: ReadonlyMap<string, number>;
  planner: ResourcePlanner<ResourceType>;
}

/** A change that keeps its resource, as a referenced block would be without its replacement. */
const KEPT: Pick<ChangeFields, 'action' | 'changes'> = { action: 'no-op', changes: [] };

/**
 * A block's plan seen against the replacements its references read (Terraform's replacement
 * semantics). A replaced block's values are known only after apply, so a dependant whose
 * create-only field reads one is replaced too: when planning the block as if those blocks were
 * kept (their observed values) needs no replacement, or a smaller one, the change says
 * `replaced_because` them. Where such a dependant cannot be replaced (it names its platform id,
 * its kind is adopt-only), that is one plan error naming both blocks and what to change, in
 * place of the kind's own. Pure.
 */
function attributeReplacement(block: ResourceBlock, pending: readonly PendingReference[], planned: PlannedBlock, context: ReplacementContext): PlannedBlock {
  const errored = planned.diagnostics.some((d) => d.severity === 'error');
  if (pending.length === 0 || (planned.change?.action !== 'replace' && !errored)) return planned;
  const reading = pending.filter((p) => pendingSources(p).some((a) => context.changes.get(a)?.action === 'replace'));
  const replaced = [...new Set(reading.flatMap(pendingSources))]
    .filter((a) => context.changes.get(a)?.action === 'replace')
    .sort((a, b) => (context.position.get(a) ?? 0) - (context.position.get(b) ?? 0));
  if (replaced.length === 0) return planned;
  const asIf = context.replan({ get: (a) => (replaced.includes(a) ? KEPT : context.changes.get(a)) });
  if (asIf === undefined || asIf.diagnostics.some((d) => d.severity === 'error')) return planned;
  const forced = (p: PlannedBlock) => new Set(p.change?.action === 'replace' ? p.change.changes.filter((c) => c.forces_replacement).map((c) => c.path.join('.')) : []);
  const [now, without] = [forced(planned), forced(asIf)];
  if (planned.change?.action === 'replace') {
    if (without.size >= now.size) return planned;
    return { ...planned, change: { ...planned.change, replaced_because: replaced } };
  }
  const first = block.references?.find((r) => r.path === reading[0]!.path || formatPath(r.path) === formatPath(reading[0]!.path));
  return {
    ...planned,
    diagnostics: [...planned.diagnostics.filter((d) => d.severity !== 'error'), dependantError(block, replaced, reading[0]!, first?.range, planned.diagnostics, context)],
  };
}

/**
 * The plan error of a block that would have to be replaced with the blocks its references read
 * (`replaced`) but cannot be: it names its platform id (never replaced), its kind cannot be
 * created, or the kind's own error says why. It names both blocks and what to change.
 */
function dependantError(
  block: ResourceBlock,
  replaced: readonly string[],
  via: PendingReference,
  range: SourceRange | undefined,
  errors: readonly Diagnostic[],
  context: ReplacementContext,
): Diagnostic {
  const { idField } = RESOURCE_KINDS[block.type];
  const pinned = (block.attributes as Record<string, unknown>)[idField] !== undefined;
  const them = replaced.length === 1 ? replaced[0]! : `${replaced.slice(0, -1).join(', ')} and ${replaced.at(-1)!}`;
  const reason = pinned
    ? `it is adopted by its ${idField}, and edgeform never replaces a resource adopted by its id`
    : context.planner.create === undefined
      ? `edgeform cannot create a ${block.type}`
      : (errors.find((d) => d.severity === 'error')?.summary ?? 'it cannot be replaced');
  const why = replaced
    .map((a) => {
      const change = context.changes.get(a)!;
      const forced = change.changes.filter((c) => c.forces_replacement).map((c) => c.path.join('.'));
      return change.replaced_because !== undefined
        ? `${a} is replaced because ${describeReplaced(change.replaced_because)}`
        : `${replaced.length === 1 ? 'its' : `${a}'s`} ${forced.join(' and ')} cannot change in place`;
    })
    .join('; ');
  const keep = `keep ${them} as ${replaced.length === 1 ? 'it is' : 'they are'} (${why})`;
  const fix = pinned
    ? `Remove ${idField} from ${block.address}: edgeform then replaces it together with ${them} and finds it again by its ${describeKey(block.type)}. Or ${keep}.`
    : `${keep.charAt(0).toUpperCase()}${keep.slice(1)}.`;
  return {
    severity: 'error',
    code: 'plan-error',
    summary: `${block.address} would have to be replaced with ${them}, which ${replaced.length === 1 ? 'is' : 'are'} replaced (${formatPath(via.path)} reads ${via.template}), but ${reason}`,
    detail: fix,
    address: block.address,
    range: range ?? block.range,
  };
}

/** A change whose block has pending references: they, `after_unknown` and a note each. */
function withPendingReferences(change: ResourceChange, pending: PendingReference[], notes: string[]): ResourceChange {
  const unknown = unknownsOf(change.after);
  return {
    ...change,
    notes: [...change.notes, ...notes],
    references: pending,
    ...(unknown === undefined ? {} : { after_unknown: unknown as Record<string, unknown> }),
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

/** A block's planned change (or none), its diagnostics, and for a move the resource it was moved from. */
interface PlannedBlock<K extends ResourceType = ResourceType> {
  change?: ResourceChange<K>;
  diagnostics: Diagnostic[];
  moved?: Observation & { exists: true };
}

function planResource<K extends ResourceType>(
  block: ResourceBlock<K>,
  observed: Observation,
  planners: ResourcePlanners,
  checkWarnings: string[],
  ref: ResourceRef,
  owners: OwnershipContext,
  resend = false,
): PlannedBlock<K> {
  const planner: ResourcePlanner<K> = planners[block.type];
  const desired = block.attributes;
  const verdict = judgeOwnership(block, observed, planner, ref, owners);
  if (verdict.diagnostics.some((d) => d.severity === 'error')) return { diagnostics: verdict.diagnostics };
  if (verdict.move) return planMove(block, planner, ref, verdict.move, checkWarnings);
  const planned = planOwnedResource(block, observed, planner, checkWarnings, ref, resend, verdict.claim === true);
  return { ...planned, diagnostics: [...verdict.diagnostics, ...planned.diagnostics] };
}

function planOwnedResource<K extends ResourceType>(
  block: ResourceBlock<K>,
  observed: Observation,
  planner: ResourcePlanner<K>,
  checkWarnings: string[],
  ref: ResourceRef,
  resend: boolean,
  claim = false,
): { change?: ResourceChange<K>; diagnostics: Diagnostic[] } {
  const desired = block.attributes;
  const lockTaskId = observed.exists ? (observed.lockTaskId ?? null) : null;
  const identity = observed.exists && observed.foundBy !== undefined ? observed.foundBy : (planner.create?.identity(desired, ref) ?? undefined);
  // A kind whose platform id is part of its natural key (a DNS zone's name) names it in every
  // block: such a block is still created when absent, not refused as an unknown id.
  const { idField, create } = RESOURCE_KINDS[block.type];
  const key = create?.key;
  const named = (desired as Record<string, unknown>)[idField] !== undefined && !(Array.isArray(key) && key.includes(idField));
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
        ...destroyNote(planner, observed),
      },
    };
  }

  if (!observed.exists) {
    if (planner.create && !named) {
      const created = planCreate(block, planner.create.plan(desired, ref, observed.facts), identity, checkWarnings);
      // A pruning stack's create of a container writes its pruning owner: a create made again at apply (references) must too.
      return created.change && planner.ownership?.scope === 'prune' && ref.prune === true ? { ...created, change: { ...created.change, claim: true } } : created;
    }
    const id = (desired as Record<string, unknown>)[idField];
    const detail = planner.create
      ? `Check the id, or remove ${idField} to have edgeform create the ${block.type} (found again by its ${describeKey(block.type)}).`
      : `edgeform cannot create a ${block.type} (the kind is adopt-only): check the id, or remove the block if the resource was deleted on purpose.`;
    return {
      diagnostics: [
        {
          ...blockError(block, `${block.address}: ${block.type} ${JSON.stringify(id)} does not exist; edgeform adopts existing resources by id`, idField, detail),
          code: RESOURCE_MISSING,
        },
      ],
    };
  }

  // A claim writes the block's ownership too (a zone's first pruning owner, a mark re-made).
  const result = claim ? planner.ownership!.claim(desired, observed.state, ref) : planner.plan(desired, observed.state, { ...(resend ? { resendSensitive: true } : {}), ref });
  if (result.errors.length > 0) {
    return { diagnostics: result.errors.map((e) => blockError(block, `${block.address}: ${e.summary}`, e.field, e.detail)) };
  }
  if (result.action === 'replace') {
    if (!planner.create) return { diagnostics: [blockError(block, `${block.address}: a field that cannot change in place differs, and edgeform cannot create a ${block.type}`)] };
    // The new resource's create is checked as a create's (the lists a read gathers for a replacement: Observation.facts).
    const create = planner.create.plan(desired, ref, observed.facts);
    if (create.errors.length > 0) return { diagnostics: create.errors.map((e) => blockError(block, `${block.address}: ${e.summary}`, e.field, e.detail)) };
    const forced = result.changes.filter((c) => c.forces_replacement).map((c) => c.path.join('.'));
    // The resource is destroyed and created again: it ends where a create would, with its payload.
    const notes = [`${forced.join(', ')} cannot be changed in place: the ${block.type} is destroyed and created again`, ...result.notes];
    return {
      diagnostics: [],
      change: changeOf(
        block,
        { ...result, after: create.after, payload: create.payload, ...(create.sensitive ? { sensitive: create.sensitive } : {}), notes },
        result.before,
        lockTaskId,
        checkWarnings,
        identity,
      ),
    };
  }
  const change = changeOf(block, result, result.before, lockTaskId, checkWarnings, identity);
  if (claim && result.action === 'update') return { diagnostics: [], change: { ...change, claim: true } };
  return { diagnostics: [], change: resend && result.action === 'update' && result.sensitive ? { ...change, resend_sensitive: true } : change };
}

/** What judging a block's ownership needs of the whole plan. */
interface OwnershipContext {
  /** Each kind's ownership listing, where one was made. */
  listings: ReadonlyMap<ResourceType, OwnedRead>;
  /** Every resource address the stack declares. */
  declared: ReadonlySet<string>;
  /** `OLDSTACK/TYPE.NAME` of every move of the stack. */
  moves: ReadonlySet<string>;
  stack: Stack;
  /**
   * Other stacks whose ownership tags name an address of a block this plan creates, in its
   * place: the addresses, and the first such block (where the warning points).
   */
  otherStacks: Map<string, { addresses: string[]; first: Pick<ResourceBlock, 'address' | 'range'> }>;
}

/** The resource a block is moved from: its id, what was read of it, and its old tags as `OLDSTACK/TYPE.NAME`. */
interface Move {
  id: unknown;
  observation: Observation & { exists: true };
  from: string;
}

/**
 * What the ownership tags say of a block of a kind that has them, before it is planned: a
 * move (`moved_from`, `renamed_from`) to re-tag, errors (a resource adopted by id that carries
 * another stack's tags; a move whose old and new resources both exist, or whose old one is not
 * one), or warnings for a block that would be created while something looks like what it was
 * renamed from. Pure.
 */
function judgeOwnership<K extends ResourceType>(
  block: ResourceBlock<K>,
  observed: Observation,
  planner: ResourcePlanner<K>,
  ref: ResourceRef,
  owners: OwnershipContext,
): { move?: Move; claim?: boolean; diagnostics: Diagnostic[] } {
  const ownership = planner.ownership;
  const desired = block.attributes;
  if (!ownership) return { diagnostics: [] };
  const { idField } = RESOURCE_KINDS[block.type];
  const idOf = (attributes: unknown) => (attributes as Record<string, unknown>)[idField];
  const moved = block.movedFrom;
  const from = moved ? `${moved.stack}/${moved.address}` : undefined;
  if (ownership.scope === 'prune') {
    const judged = judgePruneOwner(block, observed, ownership, ref, owners.stack.prune, idOf);
    if (judged !== undefined) return judged;
  }
  if (desired.ensure === 'absent') return { diagnostics: [] };
  const place = ownership.place(desired);
  const listing = owners.listings.get(block.type);
  if (moved && listing && !listing.ok) {
    return { diagnostics: [rangeError(block, `${block.address}: moved_from ${from}: listing the ${block.type} resources failed: ${listing.error.summary}`, moved.range)] };
  }
  const here = listing?.ok ? listing.resources.filter((r) => r.place === place) : [];
  const old = moved ? here.filter((r) => r.stack === moved.stack && r.address === moved.address) : [];
  const named = idOf(desired) !== undefined;

  if (observed.exists) {
    const owner = ownership.owner(observed.state, desired, ref.seal);
    const id = idOf(observed.state);
    if (named && owner !== null && (owner.stack !== ref.stack || owner.address !== ref.address)) {
      if (moved && owner.stack === moved.stack && owner.address === moved.address) return { move: { id, observation: observed, from: from! }, diagnostics: [] };
      if (owner.stack !== ref.stack) {
        const takeOver = `moved_from: ${owner.stack}/${owner.address || `${block.type}.NAME`}`;
        const noun = ownership.noun ?? 'ownership tags';
        return {
          diagnostics: [
            blockError(
              block,
              ownership.scope === 'prune'
                ? `${block.address}: ${block.type} ${JSON.stringify(id)} is pruned by stack "${owner.stack}" (${owner.address || 'no address'}), as its ${noun} says; with prune: true this stack would prune it too, and each stack would destroy the other's record sets`
                : `${block.address}: ${block.type} ${JSON.stringify(id)} carries the ${noun} of stack "${owner.stack}" (${owner.address || 'no address'}); adopting it by id would take it from that stack`,
              idField,
              ownership.scope === 'prune'
                ? `To take it over, add "${takeOver}" to this block (and remove prune: true, or the block, from stack "${owner.stack}"); to only read it, remove prune: true from this stack.`
                : `To take it over, add "${takeOver}" to this block (and remove its block from stack "${owner.stack}"); otherwise adopt another ${block.type}.`,
            ),
          ],
        };
      }
    }
    if (owner !== null && owner.stack === ref.stack && owner.mark === 'invalid' && (owner.address === ref.address || ownership.scope === 'prune')) {
      return { diagnostics: [unprovenError(block, ownership, id, idField)] };
    }
    // The block's own resource exists: one still carrying the old tags is another one.
    const others = old.filter((r) => idOf(r.desired) !== id);
    if (moved && others.length > 0) {
      return {
        diagnostics: [
          rangeError(
            block,
            `${block.address}: both the old and the new address exist: ${block.type} ${others.map((r) => JSON.stringify(idOf(r.desired))).join(', ')} carries ${from}, and ${JSON.stringify(id)} is ${ref.stack}/${block.address}`,
            moved.range,
            'A move re-tags one resource: destroy or re-tag one of them first, or remove moved_from.',
          ),
        ],
      };
    }
    // The block's own resource, its owner mark to re-make (made with the previous key, or none
    // while a key is set); a container's owner record is claimed whenever the stack prunes it.
    const remark = owner !== null && owner.stack === ref.stack && owner.address === ref.address && (owner.mark === 'previous' || owner.mark === 'missing');
    const claim = ownership.scope === 'prune' ? owner === null || owner.stack === ref.stack : remark;
    return claim ? { claim, diagnostics: [] } : { diagnostics: [] };
  }
  if (named) return { diagnostics: [] };
  if (moved) {
    if (old.length > 1) {
      const ids = old.map((r) => JSON.stringify(idOf(r.desired))).join(', ');
      return { diagnostics: [rangeError(block, `${block.address}: moved_from ${from}: ${old.length} ${block.type} resources carry those ownership tags (${ids})`, moved.range)] };
    }
    const [found] = old;
    if (found) return { move: { id: idOf(found.desired), observation: found.observation, from: from! }, diagnostics: [] };
    if (listing)
      return {
        diagnostics: [warningAt(block, `${block.address}: moved_from ${from}: no ${block.type} in ${place} carries those ownership tags; the block is created`, moved.range)],
      };
    return { diagnostics: [] };
  }
  return { diagnostics: renameWarnings(block, here, ref, owners, idOf) };
}

/**
 * What a container's pruning owner (Ownership.scope `prune`, a DNS zone) says of a block before
 * the rules all ownership kinds share, when it decides alone: a stack without prune: true never
 * writes or checks the owner (the loader refuses its moved_from, and renamed_from does not move
 * it), and `ensure: absent` deletes the zone whoever prunes it (warned when another stack does).
 * Undefined: go on with the shared rules.
 */
function judgePruneOwner<K extends ResourceType>(
  block: ResourceBlock<K>,
  observed: Observation,
  ownership: NonNullable<ResourcePlanner<K>['ownership']>,
  ref: ResourceRef,
  prune: boolean,
  idOf: (attributes: unknown) => unknown,
): { diagnostics: Diagnostic[] } | undefined {
  const owner = observed.exists ? ownership.owner(observed.state, block.attributes, ref.seal) : null;
  if (block.attributes.ensure === 'absent') {
    if (!observed.exists || owner === null || owner.stack === ref.stack) return { diagnostics: [] };
    const summary = `${block.address}: ensure: absent deletes ${block.type} ${JSON.stringify(idOf(observed.state))} with all it holds, which stack "${owner.stack}" prunes (its ${ownership.noun ?? 'ownership tags'} says so)`;
    return { diagnostics: [{ severity: 'warning', code: 'owned-elsewhere', summary, address: block.address, range: block.range }] };
  }
  return prune ? undefined : { diagnostics: [] };
}

/** The error of a block whose own resource names this stack with an owner mark that does not verify: it is neither adopted nor re-marked. */
function unprovenError(
  block: Pick<Block, 'address' | 'type' | 'range' | 'fieldSources'>,
  ownership: Pick<OwnershipRules, 'scope' | 'noun'>,
  id: unknown,
  idField: string,
): Diagnostic {
  const noun = ownership.noun ?? 'ownership tags';
  return {
    ...blockError(
      block,
      `${block.address}: ${block.type} ${JSON.stringify(id)} carries this stack's ${noun}, but its owner mark does not verify with EDGEFORM_OWNER_KEY: it was forged, copied from another resource, or made with another key; edgeform neither takes nor re-marks it`,
      idField,
      `If it was marked with the key before a rotation, set EDGEFORM_OWNER_KEY_PREVIOUS to that key (the mark is then re-made with the current one). Otherwise check who wrote its ${noun}, and remove them on the platform to have this stack ${ownership.scope === 'prune' ? 'claim it afresh' : 'create its own'}.`,
    ),
    code: OWNERSHIP_UNPROVEN,
  };
}

/**
 * Warnings for a block that would be created while, in its place, a resource carries its
 * address under another stack's name (the stack renamed?) or this stack's tags under an address
 * no block declares (the block renamed?), each naming both and the line that re-tags it.
 */
function renameWarnings(
  block: Pick<ResourceBlock, 'address' | 'type' | 'range'>,
  here: readonly OwnedResource[],
  ref: ResourceRef,
  owners: OwnershipContext,
  idOf: (attributes: unknown) => unknown,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const r of here) {
    const id = JSON.stringify(idOf(r.desired));
    if (r.address === block.address && r.stack !== ref.stack) {
      // Said once per stack, with every address they share (see stackRenameWarnings).
      const shared = owners.otherStacks.get(r.stack);
      if (shared === undefined) owners.otherStacks.set(r.stack, { addresses: [block.address], first: block });
      else if (!shared.addresses.includes(block.address)) shared.addresses.push(block.address);
    } else if (r.stack === ref.stack && r.address.startsWith(`${block.type}.`) && !owners.declared.has(r.address) && !owners.moves.has(`${r.stack}/${r.address}`)) {
      const line = owners.stack.renamedFrom === undefined ? `moved_from: ${r.address}` : `moved_from: ${r.stack}/${r.address}`;
      out.push(
        warningAt(
          block,
          `${block.address} would be created, but stack "${ref.stack}" holds ${r.address} (${block.type} ${id}), which no block declares${owners.stack.prune ? ' (prune: true destroys it)' : ''}`,
          block.range,
          `If this block was renamed from ${r.address}, add "${line}" to it: the resource is then re-tagged, not created anew and the old one left or pruned.`,
        ),
      );
    }
  }
  return out;
}

/**
 * One warning per other stack whose ownership tags name addresses of blocks this plan creates
 * (in the same place): worded as a possibility, since unrelated stacks may share an address
 * (two stacks each with a `cloud_instance.vm`); a rename would show as most of them.
 */
function stackRenameWarnings(owners: OwnershipContext): Diagnostic[] {
  return [...owners.otherStacks].map(([other, { addresses, first }]) => {
    const n = addresses.length;
    return warningAt(
      first,
      `${n === 1 ? `${addresses[0]!} would be created, and` : `${n} blocks would be created (${addresses.join(', ')}), and`} stack "${other}" holds ${n === 1 ? 'a resource' : 'resources'} at the same ${n === 1 ? 'address' : 'addresses'}: was this stack renamed from "${other}"?`,
      first.range,
      `If it was, add "renamed_from: ${other}" at the top of this stack: ${n === 1 ? 'that resource is' : 'those resources are'} then re-tagged, not created anew. Unrelated stacks may use the same addresses; then nothing needs to change.`,
    );
  });
}

/**
 * The change of a move: the resource that carried the old ownership tags, planned with the
 * block's attributes and its id (so apply reads and patches that resource), as the kind's claim:
 * an update that rewrites the ownership tags (and the declared fields that differ).
 */
function planMove<K extends ResourceType>(block: ResourceBlock<K>, planner: ResourcePlanner<K>, ref: ResourceRef, move: Move, checkWarnings: string[]): PlannedBlock<K> {
  // Judged as the block is written (its id is not in it), so a problem names only fields it has.
  const result = planner.ownership!.claim(block.attributes, move.observation.state, ref);
  // Whatever else is wrong, the block's resource is the one it moved from: references to it read that one.
  const moved = move.observation;
  if (result.errors.length > 0) return { diagnostics: result.errors.map((e) => blockError(block, `${block.address}: ${e.summary}`, e.field, e.detail)), moved };
  if (result.action === 'replace' || result.action === 'create') {
    const forced = result.changes.filter((c) => c.forces_replacement).map((c) => c.path.join('.'));
    return {
      moved,
      diagnostics: [
        blockError(
          block,
          `${block.address}: moved from ${move.from}, but ${forced.length > 0 ? `${forced.join(' and ')} cannot change in place` : 'a field that cannot change in place differs'}: move it first, then change it`,
          forced[0],
          `Apply the move alone (with ${forced.length > 0 ? forced.join(' and ') : 'those fields'} as the resource has ${forced.length === 1 ? 'it' : 'them'}), then change ${forced.length === 1 ? 'it' : 'them'} in another apply.`,
        ),
      ],
    };
  }
  // Apply acts on the resource by its id (the block has none: it was found by the old tags).
  const desired = { ...block.attributes, [RESOURCE_KINDS[block.type].idField]: move.id } as ResourceAttributes[K];
  const lockTaskId = move.observation.lockTaskId ?? null;
  const change = changeOf({ ...block, attributes: desired }, result, result.before, lockTaskId, checkWarnings, undefined);
  return { diagnostics: [], change: { ...change, moved_from: move.from }, moved };
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
    ...(planned.sensitive && planned.sensitive.length > 0 ? { sensitive: planned.sensitive } : {}),
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
function planPrune(stack: Stack, owned: readonly OwnedRead[], planners: ResourcePlanners, diagnostics: Diagnostic[], moves: ReadonlySet<string>): ResourceChange[] {
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
    const mine = listing.resources.filter((r) => r.stack === stack.name && !declared.has(r.address) && !moves.has(`${r.stack}/${r.address}`));
    // With owner marks (a key set), one address carried by several resources is a copied mark: none of them is pruned.
    const copies = new Set(mine.filter((r) => r.mark !== undefined && mine.some((o) => o !== r && o.address === r.address && o.place === r.place)));
    for (const resource of mine) {
      // Another stack's, declared by a block, or moved to a block (re-tagged, not destroyed): left out of `mine`.
      if (resource.unproven !== undefined || copies.has(resource)) {
        const why = resource.unproven ?? `it carries the same ownership (${resource.address}) as another ${listing.type} in ${resource.place}: a copied mark`;
        diagnostics.push({
          severity: 'warning',
          code: OWNERSHIP_UNPROVEN,
          summary: `prune: ${resource.address} (${describeOwned(listing.type, resource, planners)}) names stack "${stack.name}", but ${why}; it is left alone`,
          address: resource.address,
        });
        continue;
      }
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

/** A listed resource as a prune warning names it: its kind and id (`cloud_floating_ip 726e…`). */
function describeOwned<K extends ResourceType>(type: K, resource: OwnedResource, planners: ResourcePlanners): string {
  const planner: ResourcePlanner<K> = planners[type];
  return `${type} ${JSON.stringify((resource.desired as Record<string, unknown>)[RESOURCE_KINDS[type].idField])}`;
}

/** Why a resource found by this stack's ownership tags is pruned (a kind may give its own reason, OwnedResource.pruneReason). */
export const OWNED_PRUNE_NOTE = "no block declares it any more, and it carries this stack's ownership tags (prune: true)";

function prunedChange<K extends ResourceType>(type: K, resource: OwnedResource, planners: ResourcePlanners): ResourceChange {
  const planner: ResourcePlanner<K> = planners[type];
  const before = planner.summarize(resource.observation.state);
  const change = {
    address: resource.address,
    type,
    name: resource.address.slice(type.length + 1),
    // A delete says ensure: absent (a saved plan's check), whatever the listing wrote.
    desired: { ...resource.desired, ensure: 'absent' } as ResourceAttributes[K],
    depends_on: resource.dependsOn ?? [],
    lock_task_id: resource.observation.lockTaskId ?? null,
    action: 'delete',
    before,
    after: null,
    changes: [],
    fingerprint: fingerprint(before),
    warnings: lockWarnings(resource.observation.lockTaskId),
    notes: [resource.pruneReason ?? OWNED_PRUNE_NOTE],
    pruned: true,
    ...destroyNote(planner, resource.observation),
  } satisfies ChangeFields & { type: K; desired: ResourceAttributes[K] };
  return change as ResourceChange;
}

/** A destroy's note (ResourceProvider.destroyNote) as change fields: none when nothing is destroyed or the kind says nothing. */
function destroyNote<K extends ResourceType>(planner: ResourcePlanner<K>, observed: Observation): { destroy_note?: string } {
  const note = observed.exists ? planner.destroyNote?.(observed.state) : undefined;
  return note === undefined ? {} : { destroy_note: note };
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

/** An error of a block at a range of its own (its moved_from, or the stack's renamed_from). */
function rangeError(block: Pick<Block, 'address'>, summary: string, range: SourceRange, detail?: string): Diagnostic {
  return { severity: 'error', code: 'plan-error', summary, ...(detail === undefined ? {} : { detail }), address: block.address, range };
}

/** A warning of a block at a range (see rangeError). */
function warningAt(block: Pick<Block, 'address'>, summary: string, range: SourceRange, detail?: string): Diagnostic {
  return { severity: 'warning', code: 'rename-suspected', summary, ...(detail === undefined ? {} : { detail }), address: block.address, range };
}

function blockError(block: Pick<Block, 'address' | 'range' | 'fieldSources'>, summary: string, field?: string, detail?: string): Diagnostic {
  const range: SourceRange | undefined = (field && block.fieldSources[field]?.range) || block.range;
  return { severity: 'error', code: 'plan-error', summary, detail, address: block.address, range };
}
