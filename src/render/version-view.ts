import type { ViewOutput } from './view.js';

/** The formats of `edgeform version`. */
export const VERSION_FORMATS = ['text', 'json'] as const;

/** One of {@link VERSION_FORMATS}. */
export type VersionFormat = (typeof VERSION_FORMATS)[number];

/** What `edgeform version` reports: the build and the runtime. */
export interface VersionInfo {
  version: string;
  /** The full sha the build was made from, when it knew it. */
  commit: string | undefined;
  /** `process.version`, e.g. v20.19.0. */
  node: string;
  /** `${process.platform}-${process.arch}`, e.g. linux-x64. */
  platform: string;
}

/**
 * Prints the version in a format. Text: `edgeform 0.1.0 (commit abc1234, node v20.19.0)`, the
 * commit left out when unknown; JSON: `{version, commit, node, platform}`, commit null when unknown.
 */
export function writeVersion(format: VersionFormat, info: VersionInfo, output: ViewOutput): void {
  const views: Record<VersionFormat, () => string> = {
    text: () => `edgeform ${info.version} (${info.commit === undefined ? '' : `commit ${info.commit.slice(0, 7)}, `}node ${info.node})`,
    json: () => JSON.stringify({ version: info.version, commit: info.commit ?? null, node: info.node, platform: info.platform }),
  };
  output.out(views[format]());
}
