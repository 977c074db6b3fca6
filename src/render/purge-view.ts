import type { Diagnostic } from '../config/diagnostics.js';
import type { Plan } from '../plan/types.js';
import { createColors, NO_COLORS } from './colors.js';
import { formatDiagnosticsJson } from './diagnostics.js';
import { formatMessage, formatName } from './values.js';
import { diagnosticsText, writePlanText, type RunFailure, type StackFiles, type ViewOutput } from './view.js';

/** The formats of `edgeform purge`. */
export const PURGE_FORMATS = ['text', 'json'] as const;

/** One of {@link PURGE_FORMATS}. */
export type PurgeFormat = (typeof PURGE_FORMATS)[number];

/** What `edgeform purge` is about to purge, as it shows it before asking. */
export interface PurgeIntent {
  /** The stack block it purges for (`cdn_resource.site`), or null with --cname. */
  address: string | null;
  resource: { id: number; cname: string };
  type: 'urls' | 'paths' | 'all';
  /** The URLs or patterns (empty for all). */
  items: readonly string[];
  /** One line: what it acts on. */
  summary: string;
  /** How many requests, and how long when they do not fit in a minute. */
  duration: string;
  requests: number;
}

/** How a purge ended: the requests sent and, with --wait, what the purge history said of them. */
export interface PurgeResult {
  status: 'sent' | 'successful' | 'failed';
  /** The purge history's entries of this purge (with --wait). */
  purges: ReadonlyArray<{ purge_id: number; status?: string | null | undefined; created?: string | null | undefined }>;
}

/** Everything `edgeform purge` prints; one implementation per format ({@link createPurgeView}). */
export interface PurgeView {
  /** Where the approval question is asked: stdout for text, stderr when stdout carries JSON. */
  readonly promptStream: 'stdout' | 'stderr';
  invalidStack(diagnostics: readonly Diagnostic[], files: StackFiles): void;
  /** Planning the stack (to find the resource) failed: the plan, showing why. */
  planFailed(plan: Plan, files: StackFiles): void;
  /** What will be purged, before the question. */
  intent(intent: PurgeIntent): void;
  approvalUnavailable(): void;
  cancelled(): void;
  progress(message: string): void;
  /** The end: sent (and followed, with --wait). */
  finished(intent: PurgeIntent, result: PurgeResult): void;
  /** The run stopped on an error (the error boundary prints it on stderr; JSON still prints its document). */
  failed(failure: RunFailure, intent: PurgeIntent | null): void;
}

/** The view of a format: text (coloured when the run's colour is on), or one JSON document on stdout (the rest on stderr). */
export function createPurgeView(format: PurgeFormat, output: ViewOutput): PurgeView {
  const colors = createColors(output.color);
  const text = format === 'text';
  const say = (line: string) => (text ? output.out(line) : output.err(line));
  const intentLines = (i: PurgeIntent): string[] => [
    `edgeform will purge ${text ? colors.bold(formatMessage(i.resource.cname)) : formatMessage(i.resource.cname)} (CDN resource ${i.resource.id}${i.address === null ? '' : `, ${i.address}`}):`,
    `  ${formatName(i.type === 'urls' ? 'by URL' : i.type === 'paths' ? 'by pattern' : 'everything')}: ${formatMessage(i.summary)}`,
    `  ${formatMessage(i.duration)}`,
  ];
  const document = (i: PurgeIntent | null, status: string, result: PurgeResult | null, error: RunFailure | null) =>
    JSON.stringify(
      {
        address: i?.address ?? null,
        resource: i?.resource ?? null,
        purge: i === null ? null : { type: i.type, items: i.items, requests: i.requests },
        status,
        purges: result?.purges ?? [],
        error: error === null ? null : { code: error.code, message: error.message },
      },
      null,
      2,
    );
  let intent: PurgeIntent | null = null;
  return {
    promptStream: text ? 'stdout' : 'stderr',
    invalidStack: (diagnostics, files) => (text ? output.err(diagnosticsText(diagnostics, files, colors)) : output.out(formatDiagnosticsJson(diagnostics))),
    planFailed: (plan, files) => writePlanText((t) => output.err(t), plan, files, text ? colors : NO_COLORS),
    intent(i) {
      intent = i;
      for (const line of intentLines(i)) say(line);
    },
    approvalUnavailable() {
      output.err('Error: purge needs approval, and this is not an interactive terminal.\nPass --auto-approve to purge without asking.');
      if (!text) output.out(document(intent, 'not-approved', null, null));
    },
    cancelled() {
      say('Purge cancelled: nothing was purged.');
      if (!text) output.out(document(intent, 'cancelled', null, null));
    },
    progress: (message) => say(`${intent?.address ?? intent?.resource.cname ?? 'purge'}: ${formatMessage(message)}`),
    finished(i, result) {
      if (!text) {
        output.out(document(i, result.status, result, null));
        return;
      }
      const ids = result.purges.map((p) => p.purge_id).join(', ');
      if (result.status === 'failed') output.out(colors.red(colors.bold(`Purge failed: the platform reports purge ${ids} Failed.`)));
      else if (result.status === 'successful') output.out(colors.green(colors.bold(`Purge complete: the platform reports it done (purge ${ids}).`)));
      else output.out(colors.green(colors.bold(`Purge sent: ${i.requests} request${i.requests === 1 ? '' : 's'} accepted. Pass --wait to follow it until it is done.`)));
    },
    failed(failure, i) {
      if (!text) output.out(document(i ?? intent, failure.exitCode === 130 ? 'interrupted' : 'error', null, failure));
    },
  };
}
