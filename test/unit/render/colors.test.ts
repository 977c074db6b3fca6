import kleur from 'kleur';
import { afterEach, describe, expect, it } from 'vitest';
import { createColors, NO_COLORS } from '../../../src/render/colors.js';

describe('createColors', () => {
  const global = kleur.enabled;
  afterEach(() => {
    kleur.enabled = global;
  });

  it('writes the sequences kleur writes, whatever kleur’s own global switch says, and leaves the switch as it was', () => {
    kleur.enabled = true;
    const expected = { bold: kleur.bold('x'), red: kleur.red('x'), chained: kleur.bold().red('x'), nested: kleur.green(kleur.bold('x')), empty: kleur.bold('') };
    kleur.enabled = false;
    const colors = createColors(true);
    expect({ bold: colors.bold('x'), red: colors.red('x'), chained: colors.paint(['bold', 'red'], 'x'), nested: colors.green(colors.bold('x')), empty: colors.bold('') }).toEqual(
      expected,
    );
    expect(expected.chained).toBe('\u001b[1m\u001b[31mx\u001b[22m\u001b[39m');
    expect(kleur.enabled).toBe(false);
  });

  it('off, returns every text unchanged, even when kleur’s global switch is on', () => {
    kleur.enabled = true;
    const colors = createColors(false);
    expect([colors.bold('x'), colors.dim('x'), colors.red('x'), colors.green('x'), colors.yellow('x'), colors.cyan('x'), colors.paint(['bold', 'yellow'], 'x')]).toEqual([
      'x',
      'x',
      'x',
      'x',
      'x',
      'x',
      'x',
    ]);
    expect(NO_COLORS.enabled).toBe(false);
  });
});
