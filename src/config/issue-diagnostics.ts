import type { z } from 'zod';
import { describeIssue, formatPath } from './describe-issue.js';
import type { Diagnostic, SourceRange } from './diagnostics.js';
import { didYouMean } from './did-you-mean.js';
import { fieldsAt } from './schema-walk.js';
import type { SourceNode } from './source-tree.js';

/** The node at `path` under `root`, or the deepest one that exists (complete = false). */
export function locate(root: SourceNode, path: readonly PropertyKey[]): { node: SourceNode; complete: boolean } {
  let at = root;
  for (const segment of path) {
    const next = typeof segment === 'number' ? at.items?.[segment] : (at.entries?.get(String(segment)) ?? at.withheld?.get(String(segment)));
    if (!next) return { node: at, complete: false };
    at = next;
  }
  return { node: at, complete: true };
}

/** `; did you mean "ssh_key_name" (the Terraform provider's "keypair_name")?` when `key` is another tool's name for an allowed field at `path`. */
function otherName(context: IssueContext, path: readonly PropertyKey[], key: string, allowed: readonly string[]): string | undefined {
  const pattern = [...path.map((segment) => (typeof segment === 'number' ? '*' : String(segment))), key].join('.');
  for (const names of context.otherNames ?? []) {
    const field = names.fields[pattern];
    if (field !== undefined && allowed.includes(field)) return `; did you mean "${field}" (${names.former ? `"${key}" is its former name` : `${names.whose}'s "${key}"`})?`;
  }
  return undefined;
}

/** How to word and place the issues of one validated mapping (a block, `provider:`, `defaults:`). */
export interface IssueContext {
  /** The mapping that was validated. */
  root: SourceNode;
  /** The schema it was validated with (for the fields an unknown key could have meant). */
  schema: z.ZodType;
  /** What the mapping is, for messages: "cloud_instance", "provider", "defaults". */
  subject: string;
  /** Extra keys accepted at the top of the mapping but not by the schema (type, depends_on). */
  extraKeys?: readonly string[];
  address?: string;
  /** Paths whose problems are already reported elsewhere (fields filled from defaults:). */
  skip?: (path: readonly PropertyKey[]) => boolean;
  /** Detail for a missing top-level field, e.g. "or set it under defaults:". */
  missingDetail?: (field: string) => string | undefined;
  /**
   * Other names for fields (the Terraform provider's, KindSpec.terraform; edgeform's former ones,
   * KindSpec.formerNames, `former`): by the path where a name stands (`interfaces.*.existing_fip_id`,
   * `*` for list items), the field meant there; `whose` names the tool in the suggestion.
   */
  otherNames?: ReadonlyArray<{ whose: string; fields: Readonly<Record<string, string>>; former?: true }>;
}

/**
 * Diagnostics for zod issues (parsed with reportInput), each at the exact source range it
 * concerns: an unknown key at the key, a bad value at the value, a missing field at the
 * key of the mapping that lacks it. Issues at nodes that already failed (unset variable,
 * secret) are dropped so each problem is reported once.
 */
export function issuesToDiagnostics(issues: readonly z.core.$ZodIssue[], context: IssueContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (range: SourceRange, text: { code: string; summary: string; detail?: string | undefined }): void => {
    out.push({
      severity: 'error',
      code: text.code,
      summary: text.summary,
      ...(text.detail ? { detail: text.detail } : {}),
      ...(context.address ? { address: context.address } : {}),
      range,
    });
  };
  for (const issue of issues) {
    const path = issue.path as PropertyKey[];
    if (context.skip?.(path)) continue;
    if (issue.code === 'unrecognized_keys') {
      const extra = path.length === 0 ? (context.extraKeys ?? []) : [];
      const allowed = [...fieldsAt(context.schema, path), ...extra];
      const where = path.length === 0 ? context.subject : `${context.subject} ${formatPath(path)}`;
      for (const key of issue.keys) {
        const { node } = locate(context.root, [...path, key]);
        at(node.keyRange ?? node.range, {
          code: 'unknown-field',
          summary: `unknown field "${key}" in ${where}${otherName(context, path, key, allowed) ?? didYouMean(key, allowed)}`,
          detail: `${where} accepts: ${allowed.join(', ')}.`,
        });
      }
      continue;
    }
    const { node, complete } = locate(context.root, path);
    if (node.failed) continue;
    const text = describeIssue(issue, path);
    if (text.code === 'missing-field') {
      text.summary += ` in ${context.subject}`;
      if (path.length === 1) text.detail = context.missingDetail?.(String(path[0]));
    }
    // A value that came from the environment may be a secret: say where it came from, never what it is.
    if (node.interpolated && text.detail?.startsWith('Got ')) {
      text.detail = `The value comes from ${node.envReference ? `\${env:${node.envReference}}` : 'an ${env:...} reference'}; it is not shown.`;
    }
    const useKey = !complete || issue.code === 'invalid_key';
    at(useKey ? (node.keyRange ?? node.range) : node.range, text);
  }
  return out;
}
