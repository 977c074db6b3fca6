import { hash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so equal values always serialise alike. Exactly
 * JSON.stringify's text of the value with every object's keys sorted (array-index keys first, as
 * JavaScript orders an object's keys: the text earlier versions wrote, so digests and
 * fingerprints in saved plans stay valid), written in one pass: fingerprinting every resource
 * of a plan made a sorted copy of every object before.
 */
export function canonicalJson(value: unknown): string {
  return serialize('', value) as string;
}

/** One value as JSON.stringify writes it (undefined where it leaves it out); `key` is its key, for toJSON. */
function serialize(key: string, value: unknown): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += `${i === 0 ? '' : ','}${serialize(String(i), value[i]) ?? 'null'}`;
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const name of orderedKeys(record)) {
    const item = serialize(name, record[name]);
    if (item !== undefined) text += `${text.length === 1 ? '' : ','}${JSON.stringify(name)}:${item}`;
  }
  return `${text}}`;
}

/** Array-index keys ("0", "17") ascending by number, then the other keys sorted by code unit. */
function orderedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (!keys.some(isArrayIndex)) return keys;
  const indexes = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indexes, ...keys.filter((k) => !isArrayIndex(k))];
}

function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4_294_967_295;
}

/** sha256 (hex) of a value's canonical JSON: the staleness fingerprint of observed fields. */
export function fingerprint(value: unknown): string {
  return hash('sha256', canonicalJson(value ?? null), 'hex');
}
