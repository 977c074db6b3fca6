import { must } from '../errors.js';
import kleur from 'kleur';

/** The styles the views use. */
export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan';

/**
 * A view's colouriser. Whether colour is on is decided once per run, by the CLI (`decideColor`
 * in src/cli/io.ts: --no-color, NO_COLOR, a terminal); each view builds its colouriser from that
 * decision, or an uncoloured one when its format has no colour (JSON, Markdown). Off, every
 * style returns its text unchanged.
 */
export interface Colors {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  /** Several styles opened and closed together, as kleur chains them (`kleur.bold().red(text)`). */
  paint(styles: readonly Style[], text: string): string;
}

/**
 * A colouriser, on or off. On, it writes kleur's ANSI sequences whatever kleur's own global
 * switch says (kleur has only that one switch, which it would otherwise set from the
 * environment of the process): the switch is turned on for the call and restored, so no view
 * depends on global state and two views with different decisions can coexist.
 */
export function createColors(enabled: boolean): Colors {
  const paint = (styles: readonly Style[], text: string): string => {
    if (!enabled || styles.length === 0) return text;
    const global = kleur.enabled;
    kleur.enabled = true;
    try {
      let chain: kleur.Kleur = kleur;
      for (const style of styles.slice(0, -1)) chain = chain[style]();
      return chain[must(styles[styles.length - 1], 'styles[styles.length - 1]')](text);
    } finally {
      kleur.enabled = global;
    }
  };
  return {
    enabled,
    paint,
    bold: (text) => paint(['bold'], text),
    dim: (text) => paint(['dim'], text),
    red: (text) => paint(['red'], text),
    green: (text) => paint(['green'], text),
    yellow: (text) => paint(['yellow'], text),
    cyan: (text) => paint(['cyan'], text),
  };
}

/** The colouriser of output that is never coloured (JSON, Markdown, tests of plain text). */
export const NO_COLORS: Colors = createColors(false);
