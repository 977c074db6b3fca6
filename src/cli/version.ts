import { VERSION_FORMATS, writeVersion, type VersionFormat } from '../render/version-view.js';
import { BUILD_COMMIT, VERSION } from '../version.js';
import { defineCommand } from './command.js';
import { ExitCode } from './io.js';

interface VersionArgs {
  format: VersionFormat;
}

/**
 * `edgeform version [--format text|json]`: what a bug report needs, the version, the commit the
 * build was made from (when it knew it), the Node.js and platform it runs on (see writeVersion).
 * `--version` stays the bare version, for scripts.
 */
export const versionCommand = defineCommand<VersionArgs>({
  builder: (y) => y.option('format', { choices: VERSION_FORMATS, default: 'text' as const, describe: 'text, or json: {version, commit, node, platform}' }),
  async run(args, io) {
    writeVersion(args.format, { version: VERSION, commit: BUILD_COMMIT, node: process.version, platform: `${process.platform}-${process.arch}` }, io);
    return ExitCode.ok;
  },
});
