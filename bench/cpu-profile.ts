/**
 * Where a process spent its time, from the CPU profile node writes with `--cpu-prof`: the time
 * of the samples taken inside some named functions (and what they call), for figures such as
 * the share of an apply spent scheduling.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a `.cpuprofile` file (V8's Profile) this module reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string }; children?: number[] }>;
  /** Start and end of the profile, µs. */
  startTime: number;
  endTime: number;
  /** The node each sample was taken in. */
  samples: number[];
  /** The time before each sample, µs (the first from startTime). */
  timeDeltas: number[];
}

/** The one `.cpuprofile` a process wrote into `dir`. */
export function readCpuProfile(dir: string): CpuProfile {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`expected one CPU profile in ${dir}, found ${files.length}`);
  return JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as CpuProfile;
}

/**
 * The time of the samples whose nearest named frame, walking from the sampled function towards
 * the root, is one of `inside` rather than one of `outside`: the work of `inside` and of what
 * they call, except what runs under an `outside` function they call. A bundler may suffix a
 * name (`settleChange$1`); that suffix is ignored. Time is counted from each sample to the next
 * (the interval the profiler attributes to it), in ms; `totalMs` is the profile's length.
 */
export function timeInside(profile: CpuProfile, inside: readonly string[], outside: readonly string[]): { ms: number; totalMs: number } {
  const parent = new Map<number, number>();
  const name = new Map<number, string>();
  for (const node of profile.nodes) {
    name.set(node.id, node.callFrame.functionName.replace(/\$\d+$/, ''));
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const ins = new Set(inside);
  const outs = new Set(outside);
  const verdicts = new Map<number, boolean>();
  const isInside = (id: number): boolean => {
    let verdict = verdicts.get(id);
    if (verdict !== undefined) return verdict;
    verdict = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const fn = name.get(at)!;
      if (ins.has(fn)) {
        verdict = true;
        break;
      }
      if (outs.has(fn)) break;
    }
    verdicts.set(id, verdict);
    return verdict;
  };
  let us = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const next = profile.timeDeltas[i + 1] ?? 0;
    if (isInside(profile.samples[i]!)) us += next;
  }
  return { ms: us / 1000, totalMs: (profile.endTime - profile.startTime) / 1000 };
}
