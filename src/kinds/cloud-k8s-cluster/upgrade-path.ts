// The functions, not the package: semver's index loads all of its 48 modules (about 15 ms of
// every plan's start-up); these are its documented per-function entry points.
import { must } from '../../errors.js';
import compare from 'semver/functions/compare.js';
import eq from 'semver/functions/eq.js';
import parse from 'semver/functions/parse.js';
import rcompare from 'semver/functions/rcompare.js';
import type { SemVer } from 'semver';

/**
 * Kubernetes versions as the platform spells them ("v1.31.3"). The platform upgrades one minor
 * version at a time and offers, per cluster, the versions it allows next (`upgrade_versions`),
 * so a jump across several minors is a path of single steps whose middle versions are only
 * known when each step is reached. Versions compare as versions, never as strings.
 */

/** A parsed version, or null when the text is not `vMAJOR.MINOR.PATCH`. */
export function parseK8sVersion(text: string): SemVer | null {
  const match = /^v?(\d+\.\d+\.\d+)$/.exec(text.trim());
  return match ? parse(must(match[1], 'match[1]')) : null;
}

/** One step of an upgrade path; `version` is undefined when the platform decides it later. */
export interface UpgradeStep {
  /** "v1.30" */
  minor: string;
  /** "v1.30.6", or undefined for a middle step whose patch version is chosen during apply. */
  version?: string;
}

export type UpgradePath = { kind: 'none' } | { kind: 'path'; steps: UpgradeStep[] } | { kind: 'error'; message: string };

export type NextStep = { kind: 'step'; version: string; final: boolean } | { kind: 'error'; message: string };

/**
 * The next version to upgrade to on the way from `current` to `target`, from what the platform
 * offers now: the target itself when offered, else the newest offered version of the next
 * minor. Used by the plan for the first step and by apply before every step.
 */
export function nextUpgradeStep(current: string, target: string, offered: readonly string[]): NextStep {
  const cur = parseK8sVersion(current);
  const tgt = parseK8sVersion(target);
  if (!cur) return { kind: 'error', message: `the cluster reports version "${current}", which edgeform cannot compare` };
  if (!tgt) return { kind: 'error', message: `"${target}" is not a version of the form vMAJOR.MINOR.PATCH` };
  const offers = offered.map((text) => ({ text, v: parseK8sVersion(text) })).filter((o): o is { text: string; v: SemVer } => o.v !== null);
  const list = offered.length > 0 ? offered.join(', ') : 'none';
  if (offers.some((o) => eq(o.v, tgt))) return { kind: 'step', version: formatVersion(tgt), final: true };

  const sameMinor = tgt.major === cur.major && tgt.minor === cur.minor;
  if (sameMinor || (tgt.major === cur.major && tgt.minor === cur.minor + 1)) {
    return { kind: 'error', message: `the platform does not offer ${formatVersion(tgt)} as an upgrade of ${formatVersion(cur)} (offered: ${list})` };
  }
  const next = offers.filter((o) => o.v.major === cur.major && o.v.minor === cur.minor + 1).sort((a, b) => rcompare(a.v, b.v))[0];
  if (!next) {
    return {
      kind: 'error',
      message: `the platform offers no upgrade of ${formatVersion(cur)} to v${cur.major}.${cur.minor + 1} on the way to ${formatVersion(tgt)} (offered: ${list})`,
    };
  }
  return { kind: 'step', version: formatVersion(next.v), final: false };
}

/**
 * The whole path from `current` to `target` as the plan shows it: the first step from the
 * platform's current offer, one step per minor after it, the target last. Downgrades and
 * major-version changes are errors.
 */
export function planUpgradePath(current: string, target: string, offered: readonly string[]): UpgradePath {
  const cur = parseK8sVersion(current);
  const tgt = parseK8sVersion(target);
  if (!cur) return { kind: 'error', message: `the cluster reports version "${current}", which edgeform cannot compare` };
  if (!tgt) return { kind: 'error', message: `"${target}" is not a version of the form vMAJOR.MINOR.PATCH` };
  const cmp = compare(tgt, cur);
  if (cmp === 0) return { kind: 'none' };
  if (cmp < 0) {
    return { kind: 'error', message: `downgrading from ${formatVersion(cur)} to ${formatVersion(tgt)} is not supported; the platform only upgrades` };
  }
  if (tgt.major !== cur.major) {
    return { kind: 'error', message: `upgrading across major versions (${formatVersion(cur)} to ${formatVersion(tgt)}) is not supported` };
  }
  const first = nextUpgradeStep(current, target, offered);
  if (first.kind === 'error') return first;
  const firstVersion = must(parseK8sVersion(first.version), 'parseK8sVersion(first.version)');
  const steps: UpgradeStep[] = [{ minor: `v${firstVersion.major}.${firstVersion.minor}`, version: first.version }];
  for (let minor = firstVersion.minor + 1; minor <= tgt.minor && !first.final; minor++) {
    steps.push({ minor: `v${tgt.major}.${minor}`, version: minor === tgt.minor ? formatVersion(tgt) : undefined });
  }
  return { kind: 'path', steps };
}

/** "v1.30.6", or "v1.31.x" for a step decided during apply. */
export function describeStep(step: UpgradeStep): string {
  return step.version ?? `${step.minor}.x`;
}

function formatVersion(v: SemVer): string {
  return `v${v.major}.${v.minor}.${v.patch}`;
}
