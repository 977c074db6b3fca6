import { readFileSync } from 'node:fs';
import gt from 'semver/functions/gt.js';
import valid from 'semver/functions/valid.js';
import { describe, expect, it } from 'vitest';

/**
 * CHANGELOG.md stays a Keep a Changelog file a release can be cut from (docs/ci.md, "Cutting a
 * release"): Unreleased first, then releases newest first with a date, only the standard
 * categories, no empty one, and package.json's version is the newest release (or, before the
 * first, the version the opening says Unreleased becomes).
 */
const ROOT = new URL('../../', import.meta.url);
const changelog = readFileSync(new URL('CHANGELOG.md', ROOT), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { version: string };

const CATEGORIES = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];
const RELEASE = /^## \[(?<version>[^\]]+)\] - (?<date>\d{4}-\d{2}-\d{2})$/;

interface Section {
  heading: string;
  lines: string[];
}

/** The file cut at each `## ` heading; the text before the first is the opening. */
function sections(text: string): { opening: string; sections: Section[] } {
  const [opening, ...rest] = text.split(/^(?=## )/m);
  return { opening: opening!, sections: rest.map((chunk) => ({ heading: chunk.split('\n')[0]!, lines: chunk.split('\n').slice(1) })) };
}

describe('CHANGELOG.md', () => {
  const { opening, sections: all } = sections(changelog);
  const releases = all.slice(1).map((s) => ({ ...s, match: RELEASE.exec(s.heading) }));

  it('opens with its title and has one Unreleased section, first', () => {
    expect(opening.startsWith('# Changelog\n')).toBe(true);
    expect(all[0]?.heading).toBe('## [Unreleased]');
    expect(all.filter((s) => /unreleased/i.test(s.heading))).toHaveLength(1);
  });

  it('heads every release "## [X.Y.Z] - YYYY-MM-DD", newest first', () => {
    for (const release of releases) {
      expect(release.match, release.heading).not.toBeNull();
      expect(valid(release.match!.groups!.version!), release.heading).not.toBeNull();
      expect(Number.isNaN(Date.parse(release.match!.groups!.date!)), release.heading).toBe(false);
    }
    for (let i = 1; i < releases.length; i++) {
      const [newer, older] = [releases[i - 1]!.match!.groups!, releases[i]!.match!.groups!];
      expect(gt(newer.version!, older.version!), `${newer.version} after ${older.version}`).toBe(true);
      expect(newer.date! >= older.date!, `${newer.version} dated before ${older.version}`).toBe(true);
    }
  });

  it('uses only the standard categories, each once per section and never empty', () => {
    for (const section of all) {
      const categories = section.lines.filter((l) => l.startsWith('### ')).map((l) => l.slice(4));
      expect(
        categories.filter((c) => !CATEGORIES.includes(c)),
        section.heading,
      ).toEqual([]);
      expect(new Set(categories).size, section.heading).toBe(categories.length);
      const blocks = section.lines
        .join('\n')
        .split(/^### .*$/m)
        .slice(1);
      for (const [i, block] of blocks.entries()) expect(block, `${section.heading} ${categories[i]}`).toMatch(/^- /m);
    }
  });

  it("has package.json's version as its newest release, or as what Unreleased becomes before the first", () => {
    if (releases.length > 0) {
      expect(releases[0]!.match!.groups!.version).toBe(pkg.version);
    } else {
      expect(/becomes (\d+\.\d+\.\d+)/.exec(opening)?.[1], 'the opening names the first release').toBe(pkg.version);
    }
  });
});
