import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (two levels up from src/ and from dist/src/). */
export const VERSION: string = readPackageVersion();

/** Replaced with the full commit sha by the bundler (rolldown.config.ts) when the build knows it. */
declare const __EDGEFORM_COMMIT__: string | undefined;

/**
 * The git commit the executable was built from (40 hex digits), when the build knew it: the
 * bundle of a git checkout (a git install, a tarball packed from a checkout, the Action) does;
 * running from source, or a build outside git, does not (undefined).
 */
export const BUILD_COMMIT: string | undefined = typeof __EDGEFORM_COMMIT__ === 'string' && /^[0-9a-f]{40}$/.test(__EDGEFORM_COMMIT__) ? __EDGEFORM_COMMIT__ : undefined;

function readPackageVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'edgeform' && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0';
}
