import { z } from 'zod';
import { DELETABLE_TYPES, RESOURCE_TYPES, type ResourceType } from '../config/types.js';
import { EdgeformError } from '../errors.js';
import { PLAN_FORMAT_VERSION, type Plan, type ResourceChange } from './types.js';

/** A saved plan cannot be applied as it is: stale, incompatible, or for another platform. */
export class StalePlanError extends EdgeformError {
  constructor(message: string) {
    super('EDGEFORM_STALE_PLAN', message);
  }
}

/** A file that is not a plan edgeform can read. */
export class PlanFileError extends EdgeformError {
  constructor(message: string) {
    super('EDGEFORM_PLAN_FILE', message);
  }
}

const fieldChange = z.object({ path: z.array(z.string()), op: z.enum(['add', 'update', 'remove']), before: z.unknown().optional(), after: z.unknown().optional() });
const record = z.record(z.string(), z.unknown());

const planFileSchema = z.object({
  format_version: z.string(),
  edgeform_version: z.string(),
  created_at: z.string(),
  base_url: z.string(),
  stack: z.object({ sources: z.array(z.string()), digest: z.string() }),
  resource_changes: z.array(
    z.object({
      address: z.string(),
      type: z.enum(RESOURCE_TYPES),
      name: z.string(),
      action: z.enum(['no-op', 'update', 'delete']),
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
    }),
  ),
  checks: z.array(record),
  diagnostics: z.array(record),
  summary: z.object({ add: z.number(), change: z.number(), destroy: z.number(), read: z.number() }),
  applyable: z.boolean(),
  errored: z.boolean(),
});

/**
 * What an update of each kind must carry in `payload`: the providers' own schemas (see
 * payloadSchemas in src/providers/provider.ts; plan/ does not import providers, so the caller
 * passes them). A kind without a schema cannot be updated, only adopted or deleted.
 */
export type PayloadSchemas = Partial<Record<ResourceType, z.ZodType>>;

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
 * what its provider needs, a plan with errors, or a file that is not a plan (the JSON
 * rendering of `plan --format json` included).
 */
export function parsePlanFile(text: string, file: string, payloads: PayloadSchemas): Plan {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PlanFileError(`${file} is not a saved plan: ${(error as Error).message}`);
  }
  if (isPlanJsonRendering(json)) {
    throw new PlanFileError(`${file} is the JSON rendering of a plan (plan --format json), not a plan file; save one with edgeform plan --out FILE`);
  }
  checkFormatVersion((json as { format_version?: unknown } | null)?.format_version, file);
  const parsed = planFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PlanFileError(`${file} is not a valid saved plan: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  parsed.data.resource_changes.forEach((change, index) => {
    checkAction(change, index, file);
    checkUpdatePayload(change, index, file, payloads);
  });
  const plan = parsed.data as unknown as Plan;
  if (plan.errored) throw new PlanFileError(`${file} is a plan with errors; it cannot be applied. Fix them and run edgeform plan again.`);
  return plan;
}

function checkFormatVersion(version: unknown, file: string): void {
  const match = typeof version === 'string' ? /^(\d+)\.(\d+)$/.exec(version) : null;
  if (!match) throw new PlanFileError(`${file} is not a valid saved plan: format_version: expected "MAJOR.MINOR", got ${JSON.stringify(version) ?? 'nothing'}`);
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

/** The output of `plan --format json` (see render/plan-json.ts): its changes carry `change.actions`. */
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
    if (!(DELETABLE_TYPES as readonly ResourceType[]).includes(change.type)) {
      throw new PlanFileError(`${file} is not a valid saved plan: ${where}: action: edgeform cannot delete a ${change.type}`);
    }
    if (ensure !== 'absent') {
      throw new PlanFileError(`${file} is not a valid saved plan: ${where}: action: a delete needs desired.ensure: absent, got ${JSON.stringify(ensure) ?? 'nothing'}`);
    }
  }
  if (change.action === 'update' && ensure === 'absent') {
    throw new PlanFileError(`${file} is not a valid saved plan: ${where}: action: an update of a resource whose desired.ensure is absent`);
  }
}

function checkUpdatePayload(change: { address: string; type: ResourceType; action: string; payload?: unknown }, index: number, file: string, payloads: PayloadSchemas): void {
  if (change.action !== 'update') return;
  const where = `resource_changes.${index} (${change.address})`;
  const schema = payloads[change.type];
  if (schema === undefined) throw new PlanFileError(`${file} is not a valid saved plan: ${where}: ${change.type} cannot be updated; edgeform only adopts or deletes it`);
  if (change.payload === undefined) throw new PlanFileError(`${file} is not a valid saved plan: ${where}: payload: an update needs its payload`);
  const parsed = schema.safeParse(change.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PlanFileError(`${file} is not a valid saved plan: ${where}: ${['payload', ...issue.path.map(String)].join('.')}: ${issue.message}`);
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
export function describeStaleness(change: ResourceChange, fresh: Record<string, unknown> | null): StaleResource {
  const differences: string[] = [];
  if (change.before === null && fresh !== null) differences.push('did not exist when planned, exists now');
  else if (change.before !== null && fresh === null) differences.push('existed when planned, is gone now');
  else if (change.before !== null && fresh !== null) {
    for (const key of new Set([...Object.keys(change.before), ...Object.keys(fresh)])) {
      const a = JSON.stringify(change.before[key]);
      const b = JSON.stringify(fresh[key]);
      if (a !== b) differences.push(`${key}: ${a ?? '(unset)'} when planned, now ${b ?? '(unset)'}`);
    }
  }
  return { address: change.address, differences };
}
