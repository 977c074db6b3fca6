/** Result of expanding one string scalar: the value, or why it could not be expanded. */
export type Interpolation = { ok: true; value: string; references: string[] } | { ok: false; reason: 'unset'; name: string } | { ok: false; reason: 'malformed'; text: string };

const REFERENCE = /\$\$\{|\$\{([^}]*)\}?/g;
const ENV_NAME = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;
/** A string that is exactly one ${env:NAME} reference (also the JSON Schema's pattern for such values). */
export const WHOLE_REFERENCE = /^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * Expands `${env:NAME}` from `env` in one string. `$${` stands for a literal `${`; any other
 * `${...}` is malformed (edgeform has no other interpolation). An unset variable is an
 * error, an empty one is the empty string. The first problem found is returned.
 */
export function interpolate(text: string, env: Readonly<Record<string, string | undefined>>): Interpolation {
  if (!text.includes('${')) return { ok: true, value: text, references: [] };
  const references: string[] = [];
  let problem: Interpolation | undefined;
  const value = text.replace(REFERENCE, (match: string, inner: string | undefined) => {
    if (match === '$${') return '${';
    const name = match.endsWith('}') ? ENV_NAME.exec(inner ?? '')?.[1] : undefined;
    if (name === undefined) {
      problem ??= { ok: false, reason: 'malformed', text: match };
      return match;
    }
    const resolved = env[name];
    if (resolved === undefined) {
      problem ??= { ok: false, reason: 'unset', name };
      return match;
    }
    references.push(name);
    return resolved;
  });
  return problem ?? { ok: true, value, references };
}

/** True when the whole string is one `${env:NAME}` reference (such a value may become a number or boolean). */
export function isWholeReference(text: string): boolean {
  return WHOLE_REFERENCE.test(text);
}
