import { parseReference, writeTemplate, type TemplatePart } from '../model/references.js';

/**
 * Result of expanding one string scalar: the value, or why it could not be expanded. A string
 * holding `${TYPE.NAME.FIELD}` references keeps them: `template` holds its parts (literal text
 * with `${env:...}` expanded, and the references) and `value` the template as written (see
 * writeTemplate); the loader checks the references and the planner resolves them.
 */
export type Interpolation =
  { ok: true; value: string; references: string[]; template?: TemplatePart[] } | { ok: false; reason: 'unset'; name: string } | { ok: false; reason: 'malformed'; text: string };

const REFERENCE = /\$\$\{|\$\{([^}]*)\}?/g;
const ENV_NAME = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;
/** A string that is exactly one ${env:NAME} reference (also the JSON Schema's pattern for such values). */
export const WHOLE_REFERENCE = /^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * Expands `${env:NAME}` from `env` in one string and finds its `${TYPE.NAME.FIELD}` references.
 * `$${` stands for a literal `${`; any other `${...}` is malformed. An unset variable is an
 * error, an empty one is the empty string. The first problem found is returned.
 */
export function interpolate(text: string, env: Readonly<Record<string, string | undefined>>): Interpolation {
  if (!text.includes('${')) return { ok: true, value: text, references: [] };
  const references: string[] = [];
  const parts: TemplatePart[] = [];
  let literal = '';
  let last = 0;
  let anyResource = false;
  for (const match of text.matchAll(REFERENCE)) {
    literal += text.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === '$${') {
      literal += '${';
      continue;
    }
    const closed = match[0].endsWith('}');
    const name = closed ? ENV_NAME.exec(match[1] ?? '')?.[1] : undefined;
    if (name !== undefined) {
      const resolved = env[name];
      if (resolved === undefined) return { ok: false, reason: 'unset', name };
      references.push(name);
      literal += resolved;
      continue;
    }
    const target = closed ? parseReference(match[1] ?? '') : undefined;
    if (target === undefined) return { ok: false, reason: 'malformed', text: match[0] };
    anyResource = true;
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push(target);
  }
  literal += text.slice(last);
  if (!anyResource) return { ok: true, value: literal, references };
  if (literal !== '') parts.push(literal);
  return { ok: true, value: writeTemplate(parts), references, template: parts };
}

/** True when the whole string is one `${env:NAME}` reference (such a value may become a number or boolean). */
export function isWholeReference(text: string): boolean {
  return WHOLE_REFERENCE.test(text);
}
