import type { FloatingIpSlice } from './index.js';

/**
 * The emulator's pool of public addresses, in the order they are given: the documentation ranges
 * 203.0.113.20–254 and 198.51.100.1–254 (489), then the benchmarking range 198.18.0.0/15
 * (RFC 2544: 130,048 more, no .0 or .255), so fixtures and the benchmark's creates (1,000 and more) never run
 * out. A third /24 of documentation addresses would still be too few.
 */
function* poolAddresses(): Generator<string> {
  for (const [prefix, first] of [
    ['203.0.113.', 20],
    ['198.51.100.', 1],
  ] as const) {
    for (let host = first; host <= 254; host++) yield `${prefix}${host}`;
  }
  for (let n = 1; n < 2 ** 17 - 1; n++) {
    const [third, fourth] = [(n >> 8) & 0xff, n & 0xff];
    if (fourth !== 0 && fourth !== 255) yield `198.${18 + (n >> 16)}.${third}.${fourth}`;
  }
}

/** The first address of the pool (poolAddresses) no floating IP holds, or null when none is left. */
export function freeAddress(state: FloatingIpSlice): string | null {
  const used = new Set([...state.floatingIps.values()].map((f) => f.floating_ip_address));
  for (const address of poolAddresses()) if (!used.has(address)) return address;
  return null;
}
