import { formatName } from './values.js';
import type { ViewOutput } from './view.js';

/** Where a kind's resources were listed: a project and region, a project, a reseller, a video, or the whole account. */
export type ImportPlace =
  | { kind: 'cloud'; project_id: number; region_id: number }
  | { kind: 'project'; project_id: number }
  | { kind: 'reseller'; reseller_id: number }
  | { kind: 'video'; video_id: number }
  | { kind: 'account' };

/** What one imported stack holds, for the closing line. */
export interface ImportCounts {
  /** Resources per kind, in the order they were written. */
  byKind: ReadonlyArray<readonly [string, number]>;
}

/** Everything `edgeform import` prints. */
export interface ImportView {
  /** Projects and regions found for the cloud kinds (progress). */
  cloudScopes(projects: number, regions: number): void;
  /** Videos found for the subtitles (progress). */
  videoScopes(videos: number): void;
  /** A kind's list of one place read so far (`done`: all of it), as progress. */
  discovering(type: string, place: ImportPlace, found: number, done: boolean): void;
  /** A kind left out of `--all`, and what would import it (always shown). */
  skipped(type: string, reason: string): void;
  /** A live resource left out (it would make no valid block, or would not read back as it is), and why (always shown). */
  itemSkipped(type: string, source: string, reason: string): void;
  /** A sensitive field written as `${env:VARIABLE}` (the platform never answers it): the variable to set before a plan (always shown). */
  placeholder(address: string, field: string, variable: string): void;
  /** The stack, when it goes to stdout. */
  stack(text: string): void;
  /** The stack was written to `file`. */
  written(file: string, counts: ImportCounts): void;
}

/** `in project 1 region 76`, `in project 1`, `for reseller 7`, `of video 9876`, or nothing for the account. */
export function describePlace(place: ImportPlace): string {
  if (place.kind === 'cloud') return ` in project ${place.project_id} region ${place.region_id}`;
  if (place.kind === 'project') return ` in project ${place.project_id}`;
  if (place.kind === 'reseller') return ` for reseller ${place.reseller_id}`;
  if (place.kind === 'video') return ` of video ${place.video_id}`;
  return '';
}

/**
 * The import view: the stack on stdout (or a closing line when it went to a file), notes of
 * kinds left out and warnings naming each live resource left out on stderr, and, when `progress` is on (a terminal, not CI), one stderr line per
 * list read (`Discovering cloud_floating_ip in project 1 region 76: 340 found`), with a line per
 * further page of a long list.
 */
export function createImportView(output: ViewOutput, options: { progress: boolean }): ImportView {
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  return {
    cloudScopes(projects, regions) {
      if (options.progress) output.err(`Discovering projects and regions: ${count(projects, 'project')}, ${count(regions, 'region')}`);
    },
    videoScopes(videos) {
      if (options.progress) output.err(`Discovering videos: ${count(videos, 'video')}`);
    },
    discovering(type, place, found, done) {
      if (options.progress) output.err(`Discovering ${type}${describePlace(place)}: ${found} found${done ? '' : ' so far'}`);
    },
    skipped(type, reason) {
      output.err(`Note: ${type} not imported: ${formatName(reason)}`);
    },
    itemSkipped(type, source, reason) {
      output.err(`Warning: a ${type} not imported: ${formatName(source)}: ${formatName(reason)}`);
    },
    placeholder(address, field, variable) {
      output.err(
        `Warning: ${address}: ${field} is written as \${env:${variable}} (the platform never answers it): set ${variable} to its value before edgeform plan reads the stack`,
      );
    },
    stack(text) {
      output.out(text);
    },
    written(file, counts) {
      const total = counts.byKind.reduce((sum, [, n]) => sum + n, 0);
      const parts = counts.byKind.filter(([, n]) => n > 0).map(([type, n]) => `${n} ${type}`);
      output.out(`Wrote ${count(total, 'resource')} to ${formatName(file)}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}.`);
    },
  };
}
