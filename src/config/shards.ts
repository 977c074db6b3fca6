import { createHash } from 'node:crypto';

/** One shard of N: `index` from 1 to `count`, as `--shard I/N` names it. */
export interface Shard {
  index: number;
  count: number;
}

/** The most shards `--shard I/N` takes (GitHub's matrix stops at 256 jobs, GitLab's parallel at 200). */
export const MAX_SHARDS = 1000;

/**
 * Parses `I/N` (1 ≤ I ≤ N ≤ MAX_SHARDS); undefined when the text is not that, for the caller
 * to report as a usage error.
 */
export function parseShard(text: string): Shard | undefined {
  const match = /^\s*(\d{1,4})\s*\/\s*(\d{1,4})\s*$/.exec(text);
  if (!match) return undefined;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return index >= 1 && count >= 1 && index <= count && count <= MAX_SHARDS ? { index, count } : undefined;
}

/**
 * The shard (1 to `count`) a stack belongs to, from its key alone (the SHA-256 of the key, as a
 * number, modulo the count): the same key always lands in the same shard whatever other stacks
 * exist, so N jobs each keeping their shard cover every stack exactly once. Pure.
 */
export function shardOf(key: string, count: number): number {
  const hash = createHash('sha256').update(key, 'utf8').digest();
  // 48 bits: an exact integer in a double, and spread evenly enough over any count up to MAX_SHARDS.
  return (hash.readUIntBE(0, 6) % count) + 1;
}

/** Whether the stack with this key belongs to `shard`. Pure. */
export function inShard(key: string, shard: Shard): boolean {
  return shardOf(key, shard.count) === shard.index;
}
