import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (two levels up from src/ and from dist/src/). */
export const VERSION: string = readPackageVersion();

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
