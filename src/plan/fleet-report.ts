import { posix } from 'node:path';
import { z } from 'zod';

/**
 * One summary of many stacks: the per-stack documents matrix jobs write (`plan --format json`,
 * `drift --format json`, the diagnostics document of an invalid stack, the failure documents of
 * a run that stopped, and `stacks --format json`, which says which stacks to expect) merged into
 * one report and one exit code. Pure: the command reads the files and the views render it.
 * Every document is untrusted input (a job's artifact): read with zod schemas of the fields
 * used, anything else an error of that file, never a crash.
 */

/** What a stack came to, across the documents about it. */
export type StackStatus = 'error' | 'differs' | 'same';

/** Which command's result a document is. */
export type ResultCommand = 'plan' | 'drift';

/** One problem that kept a stack from being compared or planned. */
export interface StackError {
  code: string;
  summary: string;
  /** `file:line:col` or the address it is at, when known. */
  where?: string;
}

/** One resource of a plan that changes, or of a drift report that differs. */
export interface StackDifference {
  address: string;
  /** plan: `create`, `update`, `replace`, `delete`; drift: `changed`, `missing`, `reappeared`, `unmanaged`, or `check` for a failing check. */
  action: string;
  /** The fields that differ, with the stack's and the platform's value (absent: the key is absent there). */
  fields: Array<{ field: string; stack?: unknown; platform?: unknown }>;
  /** A failing check's message, a drift entry's message. */
  message?: string;
}

/** One stack of the merged report. */
export interface StackReport {
  /** The stack's path (as the listing and the jobs name it), normalised. */
  path: string;
  name: string | null;
  /** The commands whose results were merged for it (none: only listed, or only an error). */
  commands: ResultCommand[];
  status: StackStatus;
  errors: StackError[];
  differences: StackDifference[];
  /** The result files it was read from. */
  sources: string[];
}

/** The merged report: every stack, errors first, then those that differ, then the rest; and the exit code. */
export interface FleetReport {
  /** `plan`, `drift`, or `mixed` when both were merged (none: `drift`). */
  command: ResultCommand | 'mixed';
  stacks: StackReport[];
  summary: { stacks: number; errors: number; differ: number; same: number };
  /** 1 when any stack errored, else 2 when any differs, else 0. */
  exitCode: number;
  /** The result files merged. */
  files: number;
}

/** How many problems of one stack a report keeps (the rest are counted). */
const MAX_ERRORS_PER_STACK = 50;
/** How many differing resources of one stack a report keeps. */
const MAX_DIFFERENCES_PER_STACK = 500;

const stackRecord = z.looseObject({ sources: z.array(z.string()).min(1), name: z.string().nullish() });
const jsonDiagnostic = z.looseObject({
  severity: z.string(),
  code: z.string(),
  summary: z.string(),
  address: z.string().nullish(),
  range: z.looseObject({ filename: z.string(), start: z.looseObject({ line: z.number(), column: z.number() }) }).nullish(),
});
const fieldChange = z.looseObject({ path: z.array(z.union([z.string(), z.number()])), op: z.string(), before: z.unknown().optional(), after: z.unknown().optional() });

const planDocument = z.looseObject({
  format_version: z.string().regex(/^2\./),
  stack: stackRecord,
  resource_changes: z.array(z.looseObject({ address: z.string(), action: z.string(), changes: z.array(fieldChange).default([]) })),
  checks: z.array(z.looseObject({ address: z.string(), status: z.string(), message: z.string().nullish() })).default([]),
  diagnostics: z.array(jsonDiagnostic).default([]),
  errored: z.boolean(),
});
const planFailure = z.looseObject({ complete: z.literal(false), errored: z.literal(true), errors: z.array(z.looseObject({ code: z.string(), message: z.string() })) });
const driftDocument = z.looseObject({
  in_sync: z.boolean(),
  stack: stackRecord.nullable(),
  drifted: z.array(
    z.looseObject({
      address: z.string(),
      kind: z.string(),
      message: z.string().nullish(),
      fields: z.array(z.looseObject({ field: z.string(), stack: z.unknown().optional(), platform: z.unknown().optional() })).default([]),
    }),
  ),
  failing_checks: z.array(z.looseObject({ address: z.string(), message: z.string().nullish() })).default([]),
  errors: z.array(jsonDiagnostic),
});
const diagnosticsDocument = z.looseObject({ valid: z.boolean(), diagnostics: z.array(jsonDiagnostic) });
const stacksDocument = z.looseObject({
  root: z.string(),
  stacks: z.array(z.looseObject({ path: z.string(), name: z.string().nullable(), valid: z.boolean(), diagnostics: z.array(jsonDiagnostic) })),
});

/** A document's own name for its stack (the sweep's lines will carry it), when it has one. */
const named = z.looseObject({ path: z.string().optional(), name: z.string().nullish() });

/** What one document says about one stack (a stacks listing says something about each of its stacks). */
interface Finding {
  path: string;
  name: string | null;
  command?: ResultCommand;
  /** From a stacks listing: the stack is expected to have a result. */
  listed?: boolean;
  errors: StackError[];
  differences: StackDifference[];
  differs: boolean;
  source: string;
}

/** A stack path as both the listing and plan's `stack.sources` name it: `/`-separated, no `./`, no trailing `/`. */
export function normalizeStackPath(path: string): string {
  const posixPath = path.replace(/\\/g, '/');
  const normal = posix.normalize(posixPath).replace(/\/+$/, '');
  return normal === '' ? '.' : normal;
}

/** The path of a stack from its recorded sources: its one file, or the directory of its files. */
function pathOfSources(sources: readonly string[]): string {
  if (sources.length === 1) return sources[0]!;
  return posix.dirname(normalizeStackPath(sources[0]!));
}

function errorOf(d: z.infer<typeof jsonDiagnostic>): StackError {
  const where = d.range ? `${d.range.filename}:${d.range.start.line}:${d.range.start.column}` : (d.address ?? undefined);
  return { code: d.code, summary: d.summary, ...(where ? { where } : {}) };
}

/**
 * What one document (already parsed from JSON) says, and about which stack: `fallbackPath` (the
 * result file's name) when the document names none (a run that stopped before it knew its stack).
 */
function findingsOf(document: unknown, source: string, fallbackPath: string): Finding[] {
  const own = named.safeParse(document);
  const ownPath = own.success ? own.data.path : undefined;
  const ownName = own.success ? (own.data.name ?? null) : null;
  const base = (path: string | undefined, name: string | null) => ({
    path: normalizeStackPath(ownPath ?? path ?? fallbackPath),
    name: ownName ?? name,
    errors: [] as StackError[],
    differences: [] as StackDifference[],
    differs: false,
    source,
  });

  const stacks = stacksDocument.safeParse(document);
  if (stacks.success) {
    return stacks.data.stacks.map((s) => ({
      ...base(s.path, s.name),
      path: normalizeStackPath(s.path),
      listed: true,
      errors: s.valid ? [] : s.diagnostics.filter((d) => d.severity === 'error').map(errorOf),
    }));
  }
  const plan = planDocument.safeParse(document);
  if (plan.success) {
    const p = plan.data;
    const finding: Finding = { ...base(pathOfSources(p.stack.sources), p.stack.name ?? null), command: 'plan' };
    finding.errors = p.diagnostics.filter((d) => d.severity === 'error').map(errorOf);
    for (const change of p.resource_changes) {
      if (change.action === 'no-op' || change.action === 'read') continue;
      finding.differences.push({
        address: change.address,
        action: change.action,
        fields: change.changes.map((c) => ({
          field: c.path.join('.'),
          ...(c.op === 'remove' ? {} : { stack: c.after }),
          ...(c.op === 'add' ? {} : { platform: c.before }),
        })),
      });
    }
    for (const check of p.checks)
      if (check.status !== 'pass') finding.differences.push({ address: check.address, action: 'check', fields: [], message: check.message ?? check.status });
    finding.differs = p.resource_changes.some((c) => c.action !== 'no-op' && c.action !== 'read');
    if (p.errored && finding.errors.length === 0) finding.errors.push({ code: 'plan-error', summary: 'the plan has errors' });
    return [finding];
  }
  const failure = planFailure.safeParse(document);
  if (failure.success) return [{ ...base(undefined, null), command: 'plan', errors: failure.data.errors.map((e) => ({ code: e.code, summary: e.message })) }];
  const drift = driftDocument.safeParse(document);
  if (drift.success) {
    const d = drift.data;
    const finding: Finding = { ...base(d.stack ? pathOfSources(d.stack.sources) : undefined, d.stack?.name ?? null), command: 'drift' };
    finding.errors = d.errors.map(errorOf);
    for (const r of d.drifted) finding.differences.push({ address: r.address, action: r.kind, fields: r.fields, ...(r.message ? { message: r.message } : {}) });
    for (const c of d.failing_checks) finding.differences.push({ address: c.address, action: 'check', fields: [], message: c.message ?? 'failing' });
    finding.differs = !d.in_sync && finding.differences.length > 0;
    return [finding];
  }
  const diagnostics = diagnosticsDocument.safeParse(document);
  if (diagnostics.success) {
    // An invalid stack: plan and drift print validate's document; its errors name its files.
    const errors = diagnostics.data.diagnostics.filter((d) => d.severity === 'error');
    const file = errors.find((d) => d.range)?.range?.filename;
    return [{ ...base(file, null), errors: errors.map(errorOf) }];
  }
  return [
    {
      ...base(undefined, null),
      errors: [{ code: 'unreadable-result', summary: `${source} is not a document edgeform wrote (plan, drift, validate or stacks --format json)` }],
    },
  ];
}

/**
 * The documents of one result file: one JSON document, or one per line (a sweep's output).
 * A file that holds neither is one error finding.
 */
export function parseResultFile(text: string, source: string): unknown[] | StackError {
  try {
    return [JSON.parse(text)];
  } catch {
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    if (lines.length === 0) return { code: 'unreadable-result', summary: `${source} is empty: its job wrote no result` };
    try {
      return lines.map((line) => JSON.parse(line) as unknown);
    } catch (error) {
      return { code: 'unreadable-result', summary: `${source} is not JSON: ${(error as Error).message}` };
    }
  }
}

/** One result file's text and name, as the command read it (or why it could not). */
export interface ResultFile {
  name: string;
  text?: string;
  /** Why it could not be read. */
  problem?: string;
}

/**
 * Merges result files into one report. A stack is keyed by its path: the documents about it
 * (a plan and a drift, a listing's entry and its result) become one entry whose status is the
 * worst of them. A stack a listing expects but no document reports is an error (its job wrote
 * nothing, or died); a file that cannot be read or is no edgeform document is an error under
 * its own name. Order: errors, then stacks that differ, then the rest, each by path.
 */
export function mergeResults(files: readonly ResultFile[]): FleetReport {
  const findings: Finding[] = [];
  for (const file of files) {
    const fallback = file.name;
    if (file.problem !== undefined || file.text === undefined) {
      findings.push({
        path: fallback,
        name: null,
        errors: [{ code: 'unreadable-result', summary: file.problem ?? `${file.name} could not be read` }],
        differences: [],
        differs: false,
        source: file.name,
      });
      continue;
    }
    const documents = parseResultFile(file.text, file.name);
    if (!Array.isArray(documents)) {
      findings.push({ path: fallback, name: null, errors: [documents], differences: [], differs: false, source: file.name });
      continue;
    }
    for (const document of documents) findings.push(...findingsOf(document, file.name, fallback));
  }

  const byPath = new Map<string, StackReport & { listed: boolean; reported: boolean; differs: boolean; omitted: { errors: number; differences: number } }>();
  for (const f of findings) {
    const entry = byPath.get(f.path) ?? {
      path: f.path,
      name: null,
      commands: [],
      status: 'same' as StackStatus,
      errors: [],
      differences: [],
      sources: [],
      listed: false,
      reported: false,
      differs: false,
      omitted: { errors: 0, differences: 0 },
    };
    byPath.set(f.path, entry);
    entry.name ??= f.name;
    if (f.listed) entry.listed = true;
    else entry.reported = true;
    if (f.command && !entry.commands.includes(f.command)) entry.commands.push(f.command);
    if (!entry.sources.includes(f.source)) entry.sources.push(f.source);
    for (const e of f.errors) {
      if (entry.errors.some((x) => x.code === e.code && x.summary === e.summary && x.where === e.where)) continue;
      if (entry.errors.length < MAX_ERRORS_PER_STACK) entry.errors.push(e);
      else entry.omitted.errors++;
    }
    for (const d of f.differences) {
      if (entry.differences.length < MAX_DIFFERENCES_PER_STACK) entry.differences.push(d);
      else entry.omitted.differences++;
    }
    entry.differs ||= f.differs;
  }

  const stacks: StackReport[] = [];
  for (const entry of byPath.values()) {
    if (entry.listed && !entry.reported && entry.errors.length === 0) {
      entry.errors.push({ code: 'missing-result', summary: 'no result for this stack: its job wrote none (it failed before, or was cancelled)' });
    }
    if (entry.omitted.errors > 0) entry.errors.push({ code: 'more-errors', summary: `and ${entry.omitted.errors} more errors` });
    if (entry.omitted.differences > 0) entry.differences.push({ address: `(${entry.omitted.differences} more)`, action: 'more', fields: [] });
    const status: StackStatus = entry.errors.length > 0 ? 'error' : entry.differs ? 'differs' : 'same';
    stacks.push({ path: entry.path, name: entry.name, commands: entry.commands, status, errors: entry.errors, differences: entry.differences, sources: entry.sources });
  }
  const rank: Record<StackStatus, number> = { error: 0, differs: 1, same: 2 };
  stacks.sort((a, b) => rank[a.status] - rank[b.status] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const count = (status: StackStatus) => stacks.filter((s) => s.status === status).length;
  const summary = { stacks: stacks.length, errors: count('error'), differ: count('differs'), same: count('same') };
  const commands = new Set(stacks.flatMap((s) => s.commands));
  return {
    command: commands.size === 2 ? 'mixed' : commands.has('plan') ? 'plan' : 'drift',
    stacks,
    summary,
    exitCode: summary.errors > 0 ? 1 : summary.differ > 0 ? 2 : 0,
    files: files.length,
  };
}
