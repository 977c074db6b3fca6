/**
 * How a declared tag key is compared with edgeform's ownership tag keys (`edgeform-stack`,
 * `edgeform-address`): a key that reads the same to a person is the same key. The platform's
 * reference does not say that it compares tag keys exactly; so a key differing from an
 * ownership key only by case, by compatibility forms (fullwidth, mathematical letters), by
 * accents, by invisible characters or by a Cyrillic or Greek letter that looks like a Latin
 * one is refused, not sent.
 *
 * No package for Unicode confusables is installed; the map below covers the scripts whose
 * letters pass for Latin ones (the subset of Unicode's confusables.txt for Latin letters and
 * the hyphen), and NFKD does the rest.
 */

/** Cyrillic and Greek letters (and other look-alikes) that read as a Latin letter, and dashes that read as "-". */
const LOOKALIKES: Readonly<Record<string, string>> = {
  // Cyrillic, lower case
  а: 'a',
  в: 'b',
  с: 'c',
  ԁ: 'd',
  е: 'e',
  ё: 'e',
  һ: 'h',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  ӏ: 'l',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  ԛ: 'q',
  г: 'r',
  ѕ: 's',
  т: 't',
  ц: 'u',
  ѵ: 'v',
  ԝ: 'w',
  х: 'x',
  у: 'y',
  ԍ: 'g',
  // Cyrillic, upper case
  А: 'a',
  В: 'b',
  С: 'c',
  Ԁ: 'd',
  Е: 'e',
  Ё: 'e',
  Һ: 'h',
  І: 'i',
  Ї: 'i',
  Ј: 'j',
  К: 'k',
  Ӏ: 'l',
  М: 'm',
  Н: 'h',
  О: 'o',
  Р: 'p',
  Ԛ: 'q',
  Ѕ: 's',
  Т: 't',
  Ѵ: 'v',
  Ԝ: 'w',
  Х: 'x',
  У: 'y',
  Ԍ: 'g',
  // Greek
  α: 'a',
  β: 'b',
  ϲ: 'c',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  σ: 'o',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
  ϳ: 'j',
  Α: 'a',
  Β: 'b',
  Ϲ: 'c',
  Ε: 'e',
  Ζ: 'z',
  Η: 'h',
  Ι: 'i',
  Κ: 'k',
  Μ: 'm',
  Ν: 'n',
  Ο: 'o',
  Ρ: 'p',
  Τ: 't',
  Υ: 'y',
  Χ: 'x',
  Ϳ: 'j',
  // Latin letters of other shapes
  ı: 'i',
  ȷ: 'j',
  ɡ: 'g',
  ɑ: 'a',
  ʀ: 'r',
  ᴀ: 'a',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ꜰ: 'f',
  ɢ: 'g',
  ᴋ: 'k',
  ᴍ: 'm',
  ᴏ: 'o',
  ꜱ: 's',
  ᴛ: 't',
  // dashes and minus signs
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2043': '-',
  '\u2212': '-',
  '\u02d7': '-',
  '\u058a': '-',
  '\u1400': '-',
  '\u2e3a': '-',
  '\u30fc': '-',
};

/** Characters that show nothing (zero-width spaces and joiners, soft hyphen, BOM) and combining marks. */
const INVISIBLE_OR_MARK = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\p{Mn}\p{Me}]/gu;

/**
 * The form of a tag key a reader sees: compatibility forms unfolded and accents dropped
 * (NFKD), invisible characters removed, look-alike letters mapped to the Latin letter they pass
 * for, lower case. Two keys with the same folded form look the same. Pure.
 */
export function foldTagKey(key: string): string {
  let out = '';
  for (const ch of key.normalize('NFKD').replace(INVISIBLE_OR_MARK, '')) out += LOOKALIKES[ch] ?? ch;
  return out.toLowerCase();
}

/**
 * The ownership key (or prefix) that `key` passes for without being it: `key` differs from it
 * only by case or look-alike characters. Undefined when `key` looks like none, or is written
 * exactly (an exact ownership key is refused by its own rule). Pure.
 */
export function lookalikeOf(key: string, ownershipKeys: readonly string[], prefix: string): string | undefined {
  if (key.startsWith(prefix)) return undefined;
  const folded = foldTagKey(key);
  const same = ownershipKeys.find((owned) => folded === owned);
  if (same !== undefined) return same;
  return folded.startsWith(prefix) ? `${prefix}*` : undefined;
}
