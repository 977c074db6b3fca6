import { must } from '../errors.js';
import type { Diagnostic } from './diagnostics.js';
import { RESOURCE_KINDS, type KindSpec } from '../kinds/registry.js';
import type { SensitiveField } from '../kinds/kind-spec.js';
import { formatPath, setAtPath } from '../model/references.js';
import type { SourceNode } from './source-node.js';

/** What a refused sensitive field holds while the rest of its block is checked (never in a valid block). */
const PLACEHOLDER = '${env:_}';

/** What claimSensitive found in one block. */
export interface ClaimedSensitive {
  /** The attributes with each sensitive field's `${env:NAME}` reference in place of its value. */
  attributes: Record<string, unknown>;
  /** The nodes of the sensitive values (their text is masked in code frames). */
  nodes: SourceNode[];
  /** False when a sensitive field was not one valid `${env:NAME}` reference (an error was reported). */
  ok: boolean;
}

/**
 * A block's sensitive fields (KindSpec.sensitive), taken from its source tree: each must be
 * exactly one `${env:NAME}` reference (a literal, or a text around a reference, is an error that
 * never shows the value) whose variable's value passes the field's `value` schema (checked here,
 * so a bad key is found offline; the message names the variable, never the value). The
 * attributes keep the reference as written, not the value: nothing made from the block (plans,
 * plan files, output) can hold it. A sensitive field whose key names a credential was withheld
 * by the reader with the error that refuses it: claiming it drops that error (`claimed`).
 */
export function claimSensitive(
  kind: KindSpec,
  root: SourceNode,
  attributes: Record<string, unknown>,
  address: string,
  diagnostics: Diagnostic[],
  claimed: Set<Diagnostic>,
): ClaimedSensitive {
  let out = attributes;
  const nodes: SourceNode[] = [];
  let ok = true;
  for (const field of kind.sensitive ?? []) {
    for (const { path, node } of nodesAt(root, field.path)) {
      nodes.push(node);
      if (node.refusal) claimed.add(node.refusal);
      diagnostics.push(...(node.claimDiagnostics ?? []));
      const reference = node.envReference !== undefined && !node.template ? node.envReference : undefined;
      if (reference === undefined) {
        ok = false;
        // The block is refused; its schema must not see (and quote) what is written.
        out = setAtPath(out, path, PLACEHOLDER);
        if (!node.failed) {
          diagnostics.push({
            severity: 'error',
            code: 'secret-in-stack',
            summary: `${formatPath(path)} is sensitive: write it as exactly one \${env:NAME} reference, never the value`,
            detail: 'A sensitive value comes only from the environment (export S3_SECRET=...; write ${env:S3_SECRET}); what is written here is not shown.',
            address,
            range: node.range,
          });
        }
        continue;
      }
      out = setAtPath(out, path, `\${env:${reference}}`);
      const problem = checkValue(field, node.value);
      if (problem !== undefined) {
        ok = false;
        diagnostics.push({
          severity: 'error',
          code: 'invalid-value',
          summary: `${formatPath(path)}: the value of \${env:${reference}} is not valid: ${problem}`,
          detail: `The value comes from the environment variable ${reference}; it is not shown.`,
          address,
          range: node.range,
        });
      }
    }
  }
  return { attributes: out, nodes, ok };
}

/**
 * Puts back the block's fields its kind declares ids of secret resources (KindSpec.secretIds,
 * `secret_id`), which the reader withheld as credentials, among its ordinary entries and into its
 * value, with the former names of fields (KindSpec.formerNames, `sni_secret_ids`, which the
 * schema then refuses as unknown with the current name), and returns the refusals that no longer
 * stand (with what reading the values found, to report). Other withheld keys stay refused.
 */
export function releaseSecretIds(kind: KindSpec, root: SourceNode): { released: Diagnostic[]; found: Diagnostic[] } {
  const released: Diagnostic[] = [];
  const found: Diagnostic[] = [];
  // A former name of such a field is no credential either: it is told the current name.
  for (const field of [...(kind.secretIds ?? []), ...Object.keys(kind.formerNames ?? {})]) {
    const node = root.withheld?.get(field);
    if (node === undefined || root.entries === undefined || root.entries.has(field)) continue;
    root.withheld!.delete(field);
    root.entries.set(field, node);
    (root.value as Record<string, unknown>)[field] = node.value;
    if (node.refusal) released.push(node.refusal);
    found.push(...(node.claimDiagnostics ?? []));
  }
  return { released, found };
}

/** Why a sensitive field's value is not acceptable (the schema's message, which never quotes it), or undefined. */
export function checkValue(field: SensitiveField, value: unknown): string | undefined {
  const checked = field.value.safeParse(value);
  return checked.success ? undefined : must(checked.error.issues[0], 'checked.error.issues[0]').message;
}

/** The nodes a sensitive field's path names in a block's tree (`*`: each list item), with their paths. */
function nodesAt(root: SourceNode, pattern: readonly string[]): Array<{ path: (string | number)[]; node: SourceNode }> {
  let at: Array<{ path: (string | number)[]; node: SourceNode }> = [{ path: [], node: root }];
  for (const segment of pattern) {
    const next: typeof at = [];
    for (const { path, node } of at) {
      if (segment === '*') node.items?.forEach((item, i) => next.push({ path: [...path, i], node: item }));
      else {
        const child = node.entries?.get(segment) ?? node.withheld?.get(segment);
        if (child) next.push({ path: [...path, segment], node: child });
      }
    }
    at = next;
  }
  return at;
}

/**
 * The values of the environment variables a stack's sensitive fields name (their
 * `${env:NAME}` references): the strings the API client must redact from everything it hands
 * back, should the platform echo one.
 */
export function sensitiveValues(blocks: ReadonlyArray<{ type: string; attributes: unknown }>, env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const block of blocks) {
    const kind = RESOURCE_KINDS[block.type as keyof typeof RESOURCE_KINDS] as KindSpec | undefined;
    for (const field of kind?.sensitive ?? []) {
      for (const reference of valuesAt(block.attributes, field.path)) {
        const name = typeof reference === 'string' ? /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(reference)?.[1] : undefined;
        const value = name === undefined ? undefined : env[name];
        if (value !== undefined && value !== '') values.add(value);
      }
    }
  }
  return [...values];
}

/** The values a sensitive field's path names in a block's attributes (`*`: each list item). */
function valuesAt(root: unknown, pattern: readonly string[]): unknown[] {
  let at: unknown[] = [root];
  for (const segment of pattern) {
    at = at.flatMap((value) => {
      if (segment === '*') return Array.isArray(value) ? value : [];
      return value !== null && typeof value === 'object' && !Array.isArray(value) && segment in value ? [(value as Record<string, unknown>)[segment]] : [];
    });
  }
  return at;
}

/** A sensitive value shorter than this is not searched for in plain values (too many false matches; the vendor's keys are longer). */
const MIN_SEARCHED_LENGTH = 8;

/**
 * Errors for a sensitive variable (one a sensitive field of the stack names, `${env:S3_SECRET}`)
 * that any other value of the stack reads too, or whose value another value holds: a plain field
 * is sent as it is and shown as `[REDACTED]`, so the secret would reach the platform in clear
 * (a description, a name) while the output hides that it does. Each error stands at the plain
 * value and never shows the secret. `roots` are the stack's trees (settings and blocks);
 * `sensitive` the nodes of its sensitive fields, which may share a variable between them.
 */
export function checkSensitiveElsewhere(roots: Iterable<SourceNode>, sensitive: ReadonlySet<SourceNode>, env: Readonly<Record<string, string | undefined>>): Diagnostic[] {
  const owners = new Map<string, SourceNode>();
  for (const node of sensitive) if (node.envReference !== undefined && !owners.has(node.envReference)) owners.set(node.envReference, node);
  if (owners.size === 0) return [];
  const values = [...owners.keys()].flatMap((name) => {
    const value = env[name];
    return value !== undefined && value.length >= MIN_SEARCHED_LENGTH ? [{ name, value }] : [];
  });
  const diagnostics: Diagnostic[] = [];
  const visit = (node: SourceNode): void => {
    if (sensitive.has(node)) return;
    if (typeof node.value === 'string' && !node.failed) {
      const name = node.envReferences?.find((n) => owners.has(n)) ?? values.find((v) => (node.value as string).includes(v.value))?.name;
      if (name !== undefined) {
        const via = node.envReferences?.includes(name) ? `\${env:${name}}` : `the value of \${env:${name}}`;
        const at = must(owners.get(name), 'owners.get(name)').range;
        diagnostics.push({
          severity: 'error',
          code: 'secret-in-stack',
          summary: `${via} is a sensitive value (a sensitive field reads it at ${at.filename}:${at.start.line}:${at.start.column}), and this field is not sensitive: it would be sent in clear`,
          detail: `A sensitive value goes only into sensitive fields (an S3 origin's keys), which are written only where they belong and never shown. Use another variable here; the value is not shown.`,
          range: node.range,
        });
      }
    }
    node.entries?.forEach(visit);
    node.items?.forEach(visit);
  };
  for (const root of roots) visit(root);
  return diagnostics;
}
