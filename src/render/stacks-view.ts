import { must } from '../errors.js';
import type { Diagnostic } from '../config/diagnostics.js';
import type { ListedStack, SkippedFile } from '../config/discover-stacks.js';
import type { Place } from '../config/stack-reads.js';
import { createColors } from './colors.js';
import { toDiagnosticsJson } from './diagnostics.js';
import { formatMessage } from './values.js';
import type { ViewOutput } from './view.js';

/** The formats of `edgeform stacks`. */
export const STACKS_FORMATS = ['text', 'json', 'github-matrix'] as const;

/** One of {@link STACKS_FORMATS}. */
export type StacksFormat = (typeof STACKS_FORMATS)[number];

/** Version of the JSON document of `edgeform stacks`. */
export const STACKS_FORMAT_VERSION = '1.0';

/** What `edgeform stacks` found, after --shard and --changed-since. */
export interface StackListing {
  /** The root searched, as given. */
  root: string;
  /** --changed-since, when given. */
  changedSince: string | null;
  /** --shard as `I/N`, when given. */
  shard: string | null;
  stacks: ListedStack[];
  /** YAML files under the root that are no stack (of this shard, when sharded: none are). */
  skipped: SkippedFile[];
}

/** Everything `edgeform stacks` prints; one implementation per format, chosen by {@link createStacksView}. */
export interface StacksView {
  list(listing: StackListing): void;
}

/**
 * The view of a format: text (for a person: each stack with what it reads, an invalid one with
 * its errors), JSON (the listing document, docs/formats.md) or github-matrix (one line a GitHub
 * Actions matrix's `fromJSON` takes: `{"include":[{"stack":PATH,"name":NAME}]}`).
 */
export function createStacksView(format: StacksFormat, output: ViewOutput): StacksView {
  const views: Record<StacksFormat, () => StacksView> = {
    text: () => ({ list: (listing) => output.out(renderStacksText(listing, output.color)) }),
    json: () => ({ list: (listing) => output.out(JSON.stringify(toStacksJson(listing), null, 2)) }),
    'github-matrix': () => ({ list: (listing) => output.out(JSON.stringify(toGitHubMatrix(listing))) }),
  };
  return views[format]();
}

/** The listing as the JSON document (docs/formats.md). */
export function toStacksJson(listing: StackListing): Record<string, unknown> {
  const invalid = listing.stacks.filter((s) => !s.valid).length;
  return {
    format_version: STACKS_FORMAT_VERSION,
    root: listing.root,
    changed_since: listing.changedSince,
    shard: listing.shard,
    stacks: listing.stacks.map((s) => ({
      path: s.path,
      key: s.key,
      kind: s.kind,
      name: s.name,
      valid: s.valid,
      digest: s.digest,
      base_url: s.baseUrl,
      places: s.places,
      files: s.files,
      stack_reads: s.stackReads,
      diagnostics: toDiagnosticsJson(s.diagnostics).diagnostics,
    })),
    skipped: listing.skipped,
    summary: { stacks: listing.stacks.length, valid: listing.stacks.length - invalid, invalid, skipped: listing.skipped.length },
  };
}

/** What a matrix's `fromJSON` takes: one entry per stack, its path and a name for the job (its `name:`, else its key). */
export function toGitHubMatrix(listing: StackListing): { include: Array<{ stack: string; name: string }> } {
  return { include: listing.stacks.map((s) => ({ stack: s.path, name: s.name ?? s.key })) };
}

/** A place in words: `cloud project 1 region 76`, `dns zone example.com`, `cdn`. */
export function describePlace(place: Place): string {
  const parts: string[] = [place.service];
  if (place.project_id !== undefined) parts.push(`project ${place.project_id}`);
  if (place.region_id !== undefined) parts.push(`region ${place.region_id}`);
  if (place.zone !== undefined) parts.push(`zone ${formatMessage(place.zone)}`);
  if (place.reseller_id !== undefined) parts.push(`reseller ${place.reseller_id}`);
  if (place.video_id !== undefined) parts.push(`video ${place.video_id}`);
  return parts.join(' ');
}

/** One line of a diagnostic: `file:line:col: error: summary`. */
function diagnosticLine(d: Diagnostic): string {
  const at = d.range ? `${d.range.filename}:${d.range.start.line}:${d.range.start.column}: ` : '';
  return `${at}${d.severity}: ${formatMessage(d.summary)}`;
}

function renderStacksText(listing: StackListing, color: boolean): string {
  const colors = createColors(color);
  const out: string[] = [];
  for (const s of listing.stacks) {
    const what = `${s.kind === 'directory' ? 'directory stack' : 'stack'}${s.name === null ? '' : ` ${s.name}`}`;
    if (!s.valid) {
      const errors = s.diagnostics.filter((d) => d.severity === 'error').length;
      out.push(`${colors.red('✗')} ${s.path} (${what}): ${colors.red(`invalid, ${errors} error${errors === 1 ? '' : 's'}`)}`);
      for (const d of s.diagnostics) out.push(`    ${diagnosticLine(d)}`);
      continue;
    }
    out.push(`${colors.green('✓')} ${s.path} (${what})`);
    out.push(`    digest  ${must(s.digest, 's.digest').slice(0, 12)}`, `    on      ${s.baseUrl}`);
    out.push(`    reads   ${s.places.length === 0 ? '(nothing)' : s.places.map(describePlace).join('; ')}`);
    out.push(`    files   ${s.files.join(', ')}`);
    if (s.stackReads.length > 0) out.push(`    after   ${s.stackReads.join(', ')} (the stacks its \${stack:...} references read)`);
    for (const d of s.diagnostics) out.push(`    ${diagnosticLine(d)}`);
  }
  const invalid = listing.stacks.filter((s) => !s.valid).length;
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const filters = [listing.changedSince === null ? '' : `changed since ${listing.changedSince}`, listing.shard === null ? '' : `in shard ${listing.shard}`].filter(Boolean);
  if (out.length > 0) out.push('');
  out.push(
    `${count(listing.stacks.length, 'stack')} under ${listing.root}${filters.length > 0 ? ` (${filters.join(', ')})` : ''}` +
      (invalid > 0 ? `, ${colors.red(`${invalid} invalid`)}` : '') +
      (listing.skipped.length > 0 ? `; ${count(listing.skipped.length, 'YAML file')} skipped (not stacks): ${listing.skipped.map((f) => f.path).join(', ')}` : '') +
      '.',
  );
  return out.join('\n');
}
