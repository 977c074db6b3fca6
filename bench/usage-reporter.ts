/**
 * Preloaded into a measured process by `npm run bench` (`node --import`): at exit, writes the
 * process's own peak resident set size and CPU time (getrusage) as JSON to the file named by
 * EDGEFORM_BENCH_USAGE_FILE. Node offers no way to read a child's peak RSS from its parent,
 * and this costs the measured process one small module.
 */
import { writeFileSync } from 'node:fs';

/** What a measured process reports of itself. */
export interface ProcessUsage {
  /** Peak resident set size, in bytes. */
  maxRssBytes: number;
  /** User and system CPU time, in milliseconds. */
  cpuMs: number;
}

const file = process.env.EDGEFORM_BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const report: ProcessUsage = { maxRssBytes: usage.maxRSS * 1024, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 };
    writeFileSync(file, JSON.stringify(report));
  });
}
