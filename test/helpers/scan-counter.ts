/**
 * A deterministic measure of work, for tests of how cost grows with input size without a
 * clock: while `run` runs, every call of a method that walks an Array, Map or Set (includes,
 * indexOf, find, filter, map, slice, splice, shift, sort, join, forEach, ...) and every iterator
 * made over one (for...of, spread, Array.from) adds the collection's size, and Object.keys,
 * values, entries and fromEntries add the number of properties; a string's indexOf and includes
 * add the characters they crossed. Repeated scans of a growing
 * collection, the usual way code turns quadratic, therefore show up as quadratic counts. It
 * counts everything that runs meanwhile, libraries included (yaml, zod), which is the point.
 */
export async function countScans<T>(run: () => Promise<T> | T): Promise<{ result: T; scanned: number }> {
  let scanned = 0;
  const restores: Array<() => void> = [];
  const patch = (target: object, key: PropertyKey, size: (self: any, args: unknown[], result: unknown) => number) => {
    const original = (target as Record<PropertyKey, (...args: unknown[]) => unknown>)[key as string]!;
    const wrapped = function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      scanned += size(this, args, result);
      return result;
    };
    Object.defineProperty(target, key, { value: wrapped, writable: true, configurable: true });
    restores.push(() => Object.defineProperty(target, key, { value: original, writable: true, configurable: true }));
  };
  const ARRAY_SCANS = [
    'includes',
    'indexOf',
    'lastIndexOf',
    'find',
    'findIndex',
    'findLast',
    'findLastIndex',
    'some',
    'every',
    'filter',
    'map',
    'forEach',
    'reduce',
    'reduceRight',
    'flatMap',
    'flat',
    'slice',
    'splice',
    'shift',
    'unshift',
    'concat',
    'join',
    'sort',
    'reverse',
    'fill',
    'keys',
    'values',
    'entries',
    Symbol.iterator,
  ];
  for (const key of ARRAY_SCANS) patch(Array.prototype, key, (self: unknown[]) => self.length);
  for (const proto of [Map.prototype, Set.prototype]) {
    for (const key of ['forEach', 'keys', 'values', 'entries', Symbol.iterator]) patch(proto, key, (self: Map<unknown, unknown>) => self.size);
  }
  for (const key of ['keys', 'values', 'entries']) patch(Object, key, (_self, _args, result) => (result as unknown[]).length);
  patch(Object, 'fromEntries', (_self, _args, result) => Object.getOwnPropertyNames(result).length);
  // String searches add the characters they crossed: a search for what lies far ahead, made
  // once per value of a long line, is how reading text turns quadratic.
  const from = (args: unknown[]) => Math.max(0, Number(args[1] ?? 0) || 0);
  patch(String.prototype, 'indexOf', (self: string, args, result) => ((result as number) === -1 ? self.length : (result as number)) - from(args) + 1);
  patch(String.prototype, 'includes', (self: string, args) => self.length - from(args));
  try {
    const result = await run();
    return { result, scanned };
  } finally {
    for (const restore of restores.reverse()) restore();
  }
}
