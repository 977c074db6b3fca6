import { BUILD_COMMIT, VERSION } from '../version.js';
import { defineCommand } from './command.js';
import { ExitCode } from './io.js';

interface VersionArgs {
  format: 'text' | 'json';
}

/**
 * `edgeform version [--format text|json]`: what a bug report needs. Text: `edgeform 0.1.0
 * (commit abc1234, node v20.19.0)`, the commit left out when the build does not know it; JSON:
 * `{version, commit, node, platform}` with commit the full sha or null, platform as
 * `linux-x64`. `--version` stays the bare version, for scripts.
 */
export const versionCommand = defineCommand<VersionArgs>({
  builder: (y) => y.option('format', { choices: ['text', 'json'] as const, default: 'text' as const, describe: 'text, or json: {version, commit, node, platform}' }),
  async run(args, io) {
    if (args.format === 'json') {
      io.out(JSON.stringify({ version: VERSION, commit: BUILD_COMMIT ?? null, node: process.version, platform: `${process.platform}-${process.arch}` }));
    } else {
      io.out(`edgeform ${VERSION} (${BUILD_COMMIT === undefined ? '' : `commit ${BUILD_COMMIT.slice(0, 7)}, `}node ${process.version})`);
    }
    return ExitCode.ok;
  },
});
