import { isUtf8 } from 'node:buffer';
import { planCostSchema } from './cost-schema.js';
import { z } from 'zod';
import { CHECK_TYPES, isDeletable, RESOURCE_KINDS, RESOURCE_TYPES, type ResourceType } from '../kinds/registry.js';
import { PlanFileError, StalePlanError } from '../errors.js';
import { canonicalJson } from '../model/fingerprint.js';
import { buildGraph, findCycles } from '../model/graph.js';
import { PLAN_FORMAT_VERSION, type ChangeFields, type Plan, type SavedPlan } from './types.js';

const fieldChange = z.strictObject({
  path: z.array(z.string()),
  op: z.enum(['add', 'update', 'remove']),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
  forces_replacement: z.boolean().optional(),
});
const record = z.record(z.string(), z.unknown());
const position = z.strictObject({ line: z.number(), column: z.number() });

/**
 * The structure of a plan file, exactly: unknown keys anywhere are refused, so an edit that adds
 * what this edgeform would ignore is not silently carried along.
 */
const planFileSchema = z.strictObject({
  format_version: z.string(),
  edgeform_version: z.string(),
  created_at: z.string(),
  base_url: z.string(),
  stack: z.strictObject({
    sources: z.array(z.string()).min(1),
    digest: z.string().regex(/^[0-9a-f]{64}$/, 'expected a sha256 hex digest'),
    name: z.string().nullable().optional(),
  }),
  resource_changes: z.array(
    z.strictObject({
      address: z.string(),
      type: z.enum(RESOURCE_TYPES),
      name: z.string(),
      action: z.enum(['no-op', 'create', 'update', 'replace', 'delete']),
      desired: record,
      before: record.nullable(),
      after: record.nullable(),
      changes: z.array(fieldChange),
      payload: record.optional(),
      fingerprint: z.string(),
      lock_task_id: z.string().nullable(),
      depends_on: z.array(z.string()),
      unchanged_elements: z.record(z.string(), z.number()).optional(),
      warnings: z.array(z.string()),
      notes: z.array(z.string()),
      identity: z.string().optional(),
      pruned: z.literal(true).optional(),
      destroy_note: z.string().optional(),
      moved_from: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}\/[a-z][a-z0-9_]*\.[a-zA-Z_][a-zA-Z0-9_-]*$/, 'expected OLDSTACK/TYPE.NAME')
        .optional(),
      sensitive: z
        .array(
          z.strictObject({
            path: z.array(z.union([z.string(), z.int().min(0)])).min(1),
            env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name'),
          }),
        )
        .min(1)
        .optional(),
      resend_sensitive: z.literal(true).optional(),
      replaced_because: z
        .array(z.string().regex(/^[a-z][a-z0-9_]*\.[a-zA-Z_][a-zA-Z0-9_-]*$/, 'expected TYPE.NAME'))
        .min(1)
        .optional(),
      references: z
        .array(z.strictObject({ path: z.array(z.union([z.string(), z.int().min(0)])).min(1), template: z.string(), stringify: z.literal(true).optional() }))
        .min(1)
        .optional(),
      after_unknown: record.optional(),
      follow_up: z.strictObject({ step: z.string().min(1), summary: z.string(), changes: z.array(fieldChange), notes: z.array(z.string()), payload: record }).optional(),
    }),
  ),
  checks: z.array(
    z.strictObject({
      address: z.string(),
      type: z.enum(CHECK_TYPES),
      name: z.string(),
      action: z.literal('read'),
      status: z.enum(['pass', 'fail', 'error']),
      message: z.string(),
      details: record.optional(),
      desired: record,
      depends_on: z.array(z.string()),
    }),
  ),
  diagnostics: z.array(
    z.strictObject({
      severity: z.enum(['error', 'warning']),
      code: z.string(),
      summary: z.string(),
      detail: z.string().optional(),
      address: z.string().optional(),
      range: z.strictObject({ filename: z.string(), start: position, end: position }).optional(),
    }),
  ),
  summary: z.strictObject({ add: z.number(), change: z.number(), destroy: z.number(), read: z.number() }),
  applyable: z.boolean(),
  errored: z.boolean(),
  cost: planCostSchema.optional(),
});

/**
 * What an update of each kind must carry in `payload`: the providers' own schemas (see
 * payloadSchemas in src/kinds/provider.ts; plan/ does not import providers, so the caller
 * passes them). A kind without a schema cannot be updated, only adopted or deleted.
 */
export type PayloadSchemas = Partial<Record<ResourceType, z.ZodType>>;

/**
 * Whether `apply PATH` should read a file as a saved plan rather than a stack: not a *.yaml /
 * *.yml file, and either named *.json, or JSON-looking (it starts with `{`), or not text at
 * all. Such a file that does not parse is a corrupt plan file, never a stack with odd errors.
 */
export function isPlanFileCandidate(path: string, bytes: Uint8Array): boolean {
  if (/\.ya?ml$/i.test(path)) return false;
  if (/\.json$/i.test(path)) return true;
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  if (bytes[i] === 0x7b /* { */) return true;
  return bytes.includes(0) || !isUtf8(bytes);
}

/** True when the text looks like a saved plan rather than a stack (a JSON object with format_version). */
export function looksLikePlanFile(text: string): boolean {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{')) return false;
  try {
    const value = JSON.parse(trimmed) as Record<string, unknown>;
    return typeof value === 'object' && value !== null && 'format_version' in value && 'resource_changes' in value;
  } catch {
    return false;
  }
}

/**
 * Parses a saved plan and refuses what apply must not run: another major format version or a
 * newer minor one (written by a newer edgeform, it may mean what this build cannot do), an
 * action its kind or `ensure` does not allow (a delete of a kind edgeform cannot delete or of
 * one the stack keeps, an update of one the stack deletes), an update whose payload is not
 * what its provider needs, a plan with errors (unless `allowErrored`: `edgeform show` displays
 * one), or a file that is not a plan. `plan --format json` prints this same document.
 */
export function parsePlanFile(text: string, file: string, payloads: PayloadSchemas, options: { allowErrored?: boolean } = {}): SavedPlan {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PlanFileError(`${file} is a corrupt plan file: it is not valid JSON (${(error as Error).message}). Save a new one with edgeform plan --out FILE.`);
  }
  if (isPlanJsonRendering(json)) {
    throw new StalePlanError(
      `${file} is the JSON of an older edgeform (plan format 1.0, change.actions); this edgeform reads format ${PLAN_FORMAT_VERSION}. Run edgeform plan again.`,
    );
  }
  checkFormatVersion((json as { format_version?: unknown } | null)?.format_version, file);
  const parsed = planFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PlanFileError(`${file} is a corrupt plan file: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  parsed.data.resource_changes.forEach((change, index) => {
    checkAction(change, index, file);
    checkUpdatePayload(change, index, file, payloads);
  });
  const plan = parsed.data as SavedPlan;
  checkGraph(plan, file);
  if (plan.errored && !options.allowErrored) throw new PlanFileError(`${file} is a plan with errors; it cannot be applied. Fix them and run edgeform plan again.`);
  return plan;
}

/**
 * The plan document: the one JSON shape `plan --out` writes and `plan --format json` prints
 * (docs/formats.md), versioned by `format_version`, and read back by parsePlanFile. It is the
 * plan value itself, its keys in a fixed order, so the two outputs of one plan are equal.
 */
export function toPlanDocument(plan: Plan | SavedPlan): Record<string, unknown> {
  return {
    format_version: plan.format_version,
    edgeform_version: plan.edgeform_version,
    created_at: plan.created_at,
    base_url: plan.base_url,
    stack: { sources: plan.stack.sources, digest: plan.stack.digest, ...(plan.stack.name === undefined || plan.stack.name === null ? {} : { name: plan.stack.name }) },
    resource_changes: plan.resource_changes.map((c) => ({
      address: c.address,
      type: c.type,
      name: c.name,
      action: c.action,
      desired: c.desired,
      before: c.before,
      after: c.after,
      changes: c.changes,
      ...(c.payload === undefined ? {} : { payload: c.payload }),
      fingerprint: c.fingerprint,
      lock_task_id: c.lock_task_id,
      depends_on: c.depends_on,
      ...(c.unchanged_elements === undefined ? {} : { unchanged_elements: c.unchanged_elements }),
      warnings: c.warnings,
      notes: c.notes,
      ...(c.identity === undefined ? {} : { identity: c.identity }),
      ...(c.pruned ? { pruned: true as const } : {}),
      ...(c.destroy_note === undefined ? {} : { destroy_note: c.destroy_note }),
      ...(c.moved_from === undefined ? {} : { moved_from: c.moved_from }),
      ...(c.sensitive === undefined ? {} : { sensitive: c.sensitive }),
      ...(c.resend_sensitive === undefined ? {} : { resend_sensitive: c.resend_sensitive }),
      ...(c.replaced_because === undefined ? {} : { replaced_because: c.replaced_because }),
      ...(c.references === undefined ? {} : { references: c.references }),
      ...(c.after_unknown === undefined ? {} : { after_unknown: c.after_unknown }),
      ...(c.follow_up === undefined ? {} : { follow_up: c.follow_up }),
    })),
    checks: plan.checks.map((c) => ({
      address: c.address,
      type: c.type,
      name: c.name,
      action: c.action,
      status: c.status,
      message: c.message,
      ...(c.details === undefined ? {} : { details: c.details }),
      desired: c.desired,
      depends_on: c.depends_on,
    })),
    diagnostics: plan.diagnostics.map((d) => ({
      severity: d.severity,
      code: d.code,
      summary: d.summary,
      ...(d.detail === undefined ? {} : { detail: d.detail }),
      ...(d.address === undefined ? {} : { address: d.address }),
      ...(d.range === undefined ? {} : { range: { filename: d.range.filename, start: d.range.start, end: d.range.end } }),
    })),
    summary: plan.summary,
    applyable: plan.applyable,
    errored: plan.errored,
    ...(plan.cost === undefined ? {} : { cost: plan.cost }),
  };
}

/**
 * Refuses a dependency structure the planner could never have written: an address twice, a
 * depends_on naming something not in the plan (a plan holds every dependency of what it holds),
 * or a cycle.
 */
function checkGraph(plan: SavedPlan, file: string): void {
  const nodes = [...plan.resource_changes, ...plan.checks];
  const seen = new Set<string>();
  nodes.forEach((node) => {
    if (seen.has(node.address)) throw new PlanFileError(`${file} is a corrupt plan file: ${node.address} appears more than once`);
    seen.add(node.address);
    if (node.address !== `${node.type}.${node.name}`)
      throw new PlanFileError(`${file} is a corrupt plan file: address ${node.address} does not match type ${node.type} and name ${node.name}`);
  });
  for (const node of nodes) {
    const missing = node.depends_on.find((d) => !seen.has(d));
    if (missing !== undefined) throw new PlanFileError(`${file} is a corrupt plan file: ${node.address} depends on ${missing}, which is not in the plan`);
  }
  const cycles = findCycles(buildGraph(nodes.map((n) => ({ address: n.address, dependsOn: n.depends_on }))));
  if (cycles.length > 0) throw new PlanFileError(`${file} is a corrupt plan file: dependency cycle ${[...cycles[0]!, cycles[0]![0]!].join(' -> ')}`);
}

function checkFormatVersion(version: unknown, file: string): void {
  const match = typeof version === 'string' ? /^(\d+)\.(\d+)$/.exec(version) : null;
  if (!match) throw new PlanFileError(`${file} is a corrupt plan file: format_version: expected "MAJOR.MINOR", got ${JSON.stringify(version) ?? 'nothing'}`);
  const [major, minor] = [Number(match[1]), Number(match[2])];
  const [ownMajor, ownMinor] = PLAN_FORMAT_VERSION.split('.').map(Number) as [number, number];
  if (major !== ownMajor) {
    throw new StalePlanError(`${file} was written in plan format ${version as string}; this edgeform reads format ${PLAN_FORMAT_VERSION}. Run edgeform plan again.`);
  }
  if (minor > ownMinor) {
    throw new StalePlanError(
      `${file} was written in plan format ${version as string} by a newer edgeform; this edgeform reads format ${PLAN_FORMAT_VERSION} and older. Upgrade edgeform or run edgeform plan again with this one.`,
    );
  }
}

/** The output of `plan --format json` of format 1.0: its changes carried Terraform's `change.actions`. */
function isPlanJsonRendering(json: unknown): boolean {
  const changes = (json as { resource_changes?: unknown } | null)?.resource_changes;
  if (!Array.isArray(changes)) return false;
  return changes.some((c) => Array.isArray((c as { change?: { actions?: unknown } } | null)?.change?.actions));
}

/**
 * Refuses an action the stack could not have planned: a delete of a kind edgeform cannot
 * delete or whose `ensure` is not absent, an update of a resource whose `ensure` is absent.
 */
function checkAction(change: { address: string; type: ResourceType; action: string; desired: Record<string, unknown> }, index: number, file: string): void {
  const where = `resource_changes.${index} (${change.address})`;
  const ensure = change.desired.ensure;
  if (change.action === 'delete') {
    if (!isDeletable(change.type)) {
      throw new PlanFileError(`${file} is a corrupt plan file: ${where}: action: edgeform cannot delete a ${change.type}`);
    }
    if (ensure !== 'absent') {
      throw new PlanFileError(`${file} is a corrupt plan file: ${where}: action: a delete needs desired.ensure: absent, got ${JSON.stringify(ensure) ?? 'nothing'}`);
    }
  }
  if ((change.action === 'update' || change.action === 'create' || change.action === 'replace') && ensure === 'absent') {
    throw new PlanFileError(
      `${file} is a corrupt plan file: ${where}: action: ${change.action === 'update' ? 'an update' : `a ${change.action}`} of a resource whose desired.ensure is absent`,
    );
  }
  if ((change.action === 'create' || change.action === 'replace') && RESOURCE_KINDS[change.type].create === undefined) {
    throw new PlanFileError(`${file} is a corrupt plan file: ${where}: action: edgeform cannot create a ${change.type}`);
  }
}

function checkUpdatePayload(
  change: { address: string; type: ResourceType; action: string; payload?: unknown; references?: unknown[] },
  index: number,
  file: string,
  payloads: PayloadSchemas,
): void {
  if (change.action !== 'update') return;
  // A payload with pending references holds KNOWN_AFTER_APPLY where a number may go: apply sends
  // the payload it plans again once they are known, which is checked then.
  if (change.references !== undefined) return;
  const where = `resource_changes.${index} (${change.address})`;
  const schema = payloads[change.type];
  if (schema === undefined)
    throw new PlanFileError(`${file} is a corrupt plan file: ${where}: ${change.type} cannot be updated in place (edgeform creates, replaces or deletes it)`);
  if (change.payload === undefined) throw new PlanFileError(`${file} is a corrupt plan file: ${where}: payload: an update needs its payload`);
  const parsed = schema.safeParse(change.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PlanFileError(`${file} is a corrupt plan file: ${where}: ${['payload', ...issue.path.map(String)].join('.')}: ${issue.message}`);
  }
}

/** One resource whose observed fields changed since the plan was made. */
export interface StaleResource {
  address: string;
  /** Human lines: `flavor_id: "a" when planned, now "b"`. */
  differences: string[];
}

/**
 * How a fresh observation differs from what the plan saw: compares the planned `before`
 * with the fresh one field by field (the fingerprints already differ).
 */
export function describeStaleness(change: Pick<ChangeFields, 'address' | 'before'>, fresh: Record<string, unknown> | null): StaleResource {
  const differences: string[] = [];
  if (change.before === null && fresh !== null) differences.push('did not exist when planned, exists now');
  else if (change.before !== null && fresh === null) differences.push('existed when planned, is gone now');
  else if (change.before !== null && fresh !== null) {
    for (const key of new Set([...Object.keys(change.before), ...Object.keys(fresh)])) {
      const a = canonicalJson(change.before[key]);
      const b = canonicalJson(fresh[key]);
      if (a !== b) differences.push(`${key}: ${a ?? '(unset)'} when planned, now ${b ?? '(unset)'}`);
    }
  }
  return { address: change.address, differences };
}

/** The parts of a planned change that decide what apply sends; all must match a fresh plan. */
const DECIDING_FIELDS = [
  'type',
  'name',
  'action',
  'desired',
  'after',
  'changes',
  'payload',
  'depends_on',
  'unchanged_elements',
  'identity',
  'pruned',
  'destroy_note',
  'moved_from',
  'sensitive',
  'resend_sensitive',
  'replaced_because',
  'references',
  'after_unknown',
  'follow_up',
] as const;

/**
 * How a saved plan differs from the plan made now from the stack on disk and the live state
 * (same stack digest, same targets): per address, what the platform changed since (`before`)
 * and what in the plan file is not what this stack and state give (an edited plan file).
 * Empty when apply may go on: it then executes the fresh plan, whose every request body was
 * derived here and now, never taken from the file. Lock task ids, warnings and check results
 * are not compared (locks are waited for; checks are evaluated again and gate as they are now).
 */
export function comparePlans(saved: SavedPlan, fresh: Plan): StaleResource[] {
  const freshByAddress = new Map(fresh.resource_changes.map((c) => [c.address, c]));
  const savedAddresses = new Set(saved.resource_changes.map((c) => c.address));
  const stale: StaleResource[] = [];
  for (const change of saved.resource_changes) {
    const now = freshByAddress.get(change.address);
    if (now === undefined) {
      stale.push({ address: change.address, differences: ['is in the plan file, but a plan of this stack now has no change for it'] });
      continue;
    }
    // The platform changed: what follows from it (changes, payload, after) differs too, and is not news.
    if (canonicalJson(change.before) !== canonicalJson(now.before)) {
      stale.push(describeStaleness(change, now.before));
      continue;
    }
    const edited: string[] = DECIDING_FIELDS.filter((field) => canonicalJson(change[field]) !== canonicalJson(now[field]));
    if (change.fingerprint !== now.fingerprint) edited.push('fingerprint');
    if (edited.length > 0)
      stale.push({
        address: change.address,
        differences: [`${edited.join(', ')} in the plan file ${edited.length === 1 ? 'is' : 'are'} not what the stack and the platform give now`],
      });
  }
  for (const change of fresh.resource_changes) {
    if (!savedAddresses.has(change.address)) stale.push({ address: change.address, differences: ['a plan of this stack now has it, but the plan file does not'] });
  }
  const freshChecks = new Map(fresh.checks.map((c) => [c.address, c]));
  for (const check of saved.checks) {
    const now = freshChecks.get(check.address);
    if (now === undefined || canonicalJson([check.type, check.desired, check.depends_on]) !== canonicalJson([now.type, now.desired, now.depends_on])) {
      stale.push({ address: check.address, differences: ['the check in the plan file is not the check of this stack'] });
    }
  }
  const savedChecks = new Set(saved.checks.map((c) => c.address));
  for (const check of fresh.checks) {
    if (!savedChecks.has(check.address)) stale.push({ address: check.address, differences: ['a plan of this stack now has this check, but the plan file does not'] });
  }
  return stale;
}

/**
 * The addresses a saved plan covers, when they are fewer than the stack's: the --target
 * selection to plan again with (none for a plan that prunes: it covers the whole stack). Throws StalePlanError when the plan holds an address the stack
 * does not declare (nothing of it can have been reviewed from this stack).
 */
export function savedTargets(saved: SavedPlan, stackAddresses: readonly string[]): string[] {
  // What prune destroys has no block (that is why it is pruned): it is planned again by listing,
  // which only an untargeted plan does.
  const covered = [...saved.resource_changes.filter((c) => !c.pruned), ...saved.checks].map((n) => n.address);
  const declared = new Set(stackAddresses);
  const foreign = covered.filter((a) => !declared.has(a));
  if (foreign.length > 0) {
    throw new StalePlanError(`the saved plan has ${foreign.join(', ')}, which its stack does not declare; nothing was applied. Run edgeform plan again and review the new plan.`);
  }
  const set = new Set(covered);
  const whole = covered.length === stackAddresses.length && stackAddresses.every((a) => set.has(a));
  if (!whole && saved.resource_changes.some((c) => c.pruned)) {
    throw new StalePlanError(
      'the saved plan prunes, but does not cover every block of its stack (a targeted plan never prunes); nothing was applied. Run edgeform plan again and review the new plan.',
    );
  }
  return whole ? [] : covered;
}
