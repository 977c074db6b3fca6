import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ZONE_TTL, formatZoneFile, parseZoneFile, type ZoneRecordSet } from '../../../src/config/zone-file.js';
import { anyString } from '../../helpers/code-points.js';

const FILE = 'zones/example.com.zone';
const parse = (text: string, origin = 'example.com') => parseZoneFile(text, { file: FILE, origin });

/** The record sets without positions: `name type ttl` and each record's data. */
function sets(text: string, origin = 'example.com'): Array<[string, number, string[][]]> {
  const result = parse(text, origin);
  expect(result.diagnostics).toEqual([]);
  return result.recordSets.map((s) => [`${s.name} ${s.type}`, s.ttl, s.records.map((r) => r.rdata)]);
}

/** The one error of a text: `line:col summary`. */
function problem(text: string): string {
  const { diagnostics } = parse(text);
  expect(diagnostics.length, JSON.stringify(diagnostics)).toBeGreaterThanOrEqual(1);
  const d = diagnostics[0]!;
  expect(d.severity).toBe('error');
  expect(d.range?.filename).toBe(FILE);
  return `${d.range!.start.line}:${d.range!.start.column} ${d.summary}`;
}

describe('parseZoneFile', () => {
  it('reads a zone: $ORIGIN, $TTL with units, @, relative and absolute owners, blank owners, class and TTL in either order, comments', () => {
    const text = [
      '$ORIGIN example.com.',
      '$TTL 1h ; one hour',
      '@        IN  SOA ns1.example.com. hostmaster.example.com. ( 2026010101 ; serial',
      '                 7200 3600 1209600 300 )',
      '         IN  NS  ns1.gcorelabs.net.',
      '             NS  ns2.gcdn.services.',
      'www      300 IN A 192.0.2.1',
      '         IN 300 A 192.0.2.2',
      'WWW.Example.COM. 300 A 192.0.2.3',
      'mail     1d  MX  10 mx1.example.com.',
      '         1D  MX  20 mx2',
      '',
      '; a comment line',
      '$ORIGIN sub.example.com.',
      'api          AAAA 2001:db8::1',
      '_sip._tcp 1w30s SRV 10 5 5060 sip',
    ].join('\n');
    expect(sets(text)).toEqual([
      ['example.com SOA', 3600, [['ns1.example.com.', 'hostmaster.example.com.', '2026010101', '7200', '3600', '1209600', '300']]],
      ['example.com NS', 3600, [['ns1.gcorelabs.net.'], ['ns2.gcdn.services.']]],
      ['www.example.com A', 300, [['192.0.2.1'], ['192.0.2.2'], ['192.0.2.3']]],
      [
        'mail.example.com MX',
        86400,
        [
          ['10', 'mx1.example.com.'],
          ['20', 'mx2'],
        ],
      ],
      ['api.sub.example.com AAAA', 3600, [['2001:db8::1']]],
      ['_sip._tcp.sub.example.com SRV', 604830, [['10', '5', '5060', 'sip']]],
    ]);
    const mx = parse(text).recordSets[3]!;
    expect(mx.records.map((r) => r.origin)).toEqual(['example.com', 'example.com']);
    expect(parse(text).recordSets[5]!.records[0]!.origin).toBe('sub.example.com');
  });

  it('unquotes quoted strings with escapes, keeping several strings apart', () => {
    const text = ['$TTL 300', 'txt TXT "a b" "c"', 'esc TXT "say \\"hi\\"; \\\\ \\059 (x)" plain\\;semi', 'utf TXT "héllo 世界 🙂" ""'].join('\n');
    expect(sets(text)).toEqual([
      ['txt.example.com TXT', 300, [['a b', 'c']]],
      ['esc.example.com TXT', 300, [['say "hi"; \\ ; (x)', 'plain;semi']]],
      ['utf.example.com TXT', 300, [['héllo 世界 🙂', '']]],
    ]);
  });

  it('takes the origin with or without the dot, in any case; a record without TTL takes the last TTL given when there is no $TTL', () => {
    expect(sets('@ 600 IN A 192.0.2.1\nwww A 192.0.2.2\n', 'Example.COM.')).toEqual([
      ['example.com A', 600, [['192.0.2.1']]],
      ['www.example.com A', 600, [['192.0.2.2']]],
    ]);
  });

  it('locates each record and record set', () => {
    const { recordSets } = parse('$TTL 60\nwww A 192.0.2.1\n  A 192.0.2.2 ; second\n');
    expect(recordSets[0]!.at).toEqual({ filename: FILE, start: { line: 2, column: 1 }, end: { line: 2, column: 16 } });
    expect(recordSets[0]!.records[1]!.at).toEqual({ filename: FILE, start: { line: 3, column: 1 }, end: { line: 3, column: 14 } });
  });

  it('refuses $INCLUDE, $GENERATE and unknown directives at the directive', () => {
    expect(problem('$TTL 60\n$INCLUDE other.zone\n')).toBe('2:1 $INCLUDE is not supported: a zone file must hold all its records');
    expect(problem('$GENERATE 1-10 host$ A 192.0.2.$\n')).toBe('1:1 $GENERATE is not supported: write the generated records out');
    expect(problem('  $TTL 60\n$FOO bar\n')).toMatch(/^1:1 /);
    expect(problem('$FOO bar\n')).toBe('1:1 unknown directive $FOO (a zone file may use $ORIGIN and $TTL)');
    expect(problem('$TTL\n')).toBe('1:1 $TTL needs a value');
  });

  it('refuses classes other than IN, at the class', () => {
    expect(problem('$TTL 60\nwww CH A 192.0.2.1\n')).toBe('2:5 class CH is not supported: the platform serves class IN only');
    expect(problem('$TTL 60\nwww 60 HS A 192.0.2.1\n')).toBe('2:8 class HS is not supported: the platform serves class IN only');
  });

  it('refuses unterminated quotes and parentheses, and a stray ")", where they start', () => {
    expect(problem('$TTL 60\ntxt TXT "abc\n')).toBe('2:9 unterminated quoted string');
    expect(problem('$TTL 60\n@ SOA a. b. ( 1 2\n 3 4 5\n')).toBe('2:13 unterminated parenthesis: no ")" before the end of the file');
    expect(problem('$TTL 60\nwww A 192.0.2.1 )\n')).toBe('2:17 a ")" without "("');
  });

  it('refuses a record with no type or no data, a TTL out of range, no TTL at all, and an owner outside the origin', () => {
    expect(problem('$TTL 60\nwww 300 IN\n')).toBe('2:11 the record of www.example.com has no type');
    expect(problem('$TTL 60\nwww 300 IN 192.0.2.1\n')).toBe('2:12 expected a record type, found "192.0.2.1"');
    expect(problem('$TTL 60\nwww A\n')).toBe('2:6 the A record of www.example.com has no data');
    expect(problem('www 2147483648 A 192.0.2.1\n')).toBe('1:5 TTL 2147483648 is out of range: a TTL is 0 to 2147483647 seconds');
    expect(problem('$TTL 9999999999\n')).toBe('1:6 $TTL 9999999999 is out of range: a TTL is 0 to 2147483647 seconds');
    expect(problem('$TTL 1x\n')).toBe('1:6 $TTL "1x" is not a TTL (seconds, or units such as 1h30m, 1d, 1w)');
    expect(problem('www A 192.0.2.1\n')).toBe('1:5 the A record of www.example.com has no TTL, and no $TTL comes before it');
    expect(problem('$TTL 60\nwww.example.net. A 192.0.2.1\n')).toBe('2:1 owner www.example.net. (www.example.net) is not inside the zone example.com');
    expect(problem('$ORIGIN example.net.\n')).toBe('1:9 $ORIGIN example.net. is not inside the zone example.com');
    expect(problem('   A 192.0.2.1\n')).toBe('1:1 a record with a blank owner before any owner name');
    expect(problem(`$TTL 60\n${'a'.repeat(64)} A 192.0.2.1\n`)).toBe(`2:1 owner ${'a'.repeat(64)}.example.com has a label longer than 63 characters (64)`);
    expect(problem('$TTL 60\na..b A 192.0.2.1\n')).toBe('2:1 owner "a..b" has an empty label');
    expect(problem(`$TTL 60\n${Array(70).fill('abc').join('.')} A 192.0.2.1\n`)).toMatch(/^2:1 owner abc.* is longer than 253 characters \(291\)$/);
    expect(parse(`$TTL ${MAX_ZONE_TTL}\nwww A 192.0.2.1\n`).diagnostics).toEqual([]);
  });

  it('refuses a record set whose TTLs differ, at the second TTL, and goes on reading', () => {
    const { diagnostics, recordSets } = parse('$TTL 60\nwww 300 A 192.0.2.1\nwww 600 A 192.0.2.2\nwww CH A 192.0.2.3\n');
    expect(diagnostics.map((d) => `${d.range!.start.line}:${d.range!.start.column} ${d.summary}`)).toEqual([
      '3:5 the A records of www.example.com have different TTLs: 600 here, 300 at 2:5',
      '4:5 class CH is not supported: the platform serves class IN only',
    ]);
    expect(recordSets[0]!.records).toHaveLength(1);
    expect(parse('$TTL 60\nwww A 192.0.2.1\nwww 61 A 192.0.2.2\n').diagnostics[0]!.range!.start).toEqual({ line: 3, column: 5 });
  });
});

describe('parseZoneFile reads what BIND writes and refuses at its limits', () => {
  it('takes tabs and CRLF line ends as blanks, and a comment right after the data', () => {
    const text = '$TTL 300\r\nwww\tIN\tA\t192.0.2.1;first\r\n\t\tA 192.0.2.2 ;second\r\nmail\t60\tMX\t10\tmx;x\r\n';
    expect(sets(text)).toEqual([
      ['www.example.com A', 300, [['192.0.2.1'], ['192.0.2.2']]],
      ['mail.example.com MX', 60, [['10', 'mx']]],
    ]);
    // A tab-indented line keeps the previous owner, as a space-indented one does.
    expect(parse('$TTL 1\nwww A 192.0.2.1\n\tA 192.0.2.2\n').recordSets[0]!.records).toHaveLength(2);
    // A comment closes the data token, quoted or not; the next line is a new entry.
    expect(sets('$TTL 1\ntxt TXT "a";b\nother TXT c\n')).toEqual([
      ['txt.example.com TXT', 1, [['a']]],
      ['other.example.com TXT', 1, [['c']]],
    ]);
  });

  it('reads \\DDD as the byte of that decimal code and \\X as X, and refuses a code over 255 or a backslash at the end', () => {
    expect(sets('$TTL 1\nt TXT "\\065\\066\\067" \\072i a\\.b \\09x\n')).toEqual([['t.example.com TXT', 1, [['ABC', 'Hi', 'a.b', '09x']]]]);
    expect(sets('$TTL 1\nt TXT "\\000\\255" \\255\n')).toEqual([['t.example.com TXT', 1, [['\u0000\u00ff', '\u00ff']]]]);
    expect(problem('$TTL 1\nt TXT "\\256"\n')).toBe('2:8 escape \\256 is not a byte (000 to 255)');
    expect(problem('$TTL 1\nt TXT \\999\n')).toBe('2:7 escape \\999 is not a byte (000 to 255)');
    expect(problem('$TTL 1\nt TXT abc\\')).toBe('2:10 a backslash ends the file');
  });

  it('takes a second $TTL for the records after it, over any TTL a record gave', () => {
    expect(sets('$TTL 60\na A 192.0.2.1\nb 30 A 192.0.2.2\nc A 192.0.2.3\n$TTL 2h\nd A 192.0.2.4\ne 5 A 192.0.2.5\nf A 192.0.2.6\n')).toEqual([
      ['a.example.com A', 60, [['192.0.2.1']]],
      ['b.example.com A', 30, [['192.0.2.2']]],
      ['c.example.com A', 60, [['192.0.2.3']]],
      ['d.example.com A', 7200, [['192.0.2.4']]],
      ['e.example.com A', 5, [['192.0.2.5']]],
      ['f.example.com A', 7200, [['192.0.2.6']]],
    ]);
    // Without $TTL, a record takes the last TTL a record gave.
    expect(sets('a 30 A 192.0.2.1\nb A 192.0.2.2\nc 0 A 192.0.2.3\nd A 192.0.2.4\n').map(([name, ttl]) => [name, ttl])).toEqual([
      ['a.example.com A', 30],
      ['b.example.com A', 30],
      ['c.example.com A', 0],
      ['d.example.com A', 0],
    ]);
  });

  it('accepts a label of 63 characters and a name of 253, and refuses one more of each', () => {
    const label63 = 'a'.repeat(63);
    expect(parse(`$TTL 1\n${label63} A 192.0.2.1\n`).diagnostics).toEqual([]);
    expect(problem(`$TTL 1\n${'a'.repeat(64)} A 192.0.2.1\n`)).toContain('has a label longer than 63 characters (64)');
    // example.com is 11 characters: 242 more make 253.
    const name = (length: number) => {
      const labels: string[] = [];
      let left = length - 'example.com'.length;
      while (left > 0) {
        const take = Math.min(63, left - 1);
        labels.push('b'.repeat(take));
        left -= take + 1;
      }
      return labels.join('.');
    };
    expect(`${name(253)}.example.com`).toHaveLength(253);
    expect(parse(`$TTL 1\n${name(253)} A 192.0.2.1\n`).diagnostics).toEqual([]);
    expect(`${name(254)}.example.com`).toHaveLength(254);
    expect(problem(`$TTL 1\n${name(254)} A 192.0.2.1\n`)).toMatch(/is longer than 253 characters \(254\)$/);
  });

  it('reads TTL units in any case and sums them; refuses a unit it does not know', () => {
    expect(sets('$TTL 1W2D3H4M5S\na A 192.0.2.1\n')[0]![1]).toBe(604800 + 2 * 86400 + 3 * 3600 + 4 * 60 + 5);
    expect(sets('a 90 A 192.0.2.1\n')[0]![1]).toBe(90);
    expect(problem('$TTL 1y\n')).toBe('1:6 $TTL "1y" is not a TTL (seconds, or units such as 1h30m, 1d, 1w)');
    expect(problem('$TTL h\n')).toBe('1:6 $TTL "h" is not a TTL (seconds, or units such as 1h30m, 1d, 1w)');
  });

  it('reads a quoted or escaped @ or $ as data, never as the origin or a directive', () => {
    expect(sets('$TTL 1\n"@" TXT x\n').map(([name]) => name)).toEqual(['@.example.com TXT']);
    expect(sets('$TTL 1\n\\$TTL TXT x\n').map(([name]) => name)).toEqual(['$ttl.example.com TXT']);
    // A TTL or class written in quotes is not one: it is read as the type, and refused.
    expect(problem('$TTL 1\nwww "60" A 192.0.2.1\n')).toBe('2:5 expected a record type, found "60"');
  });

  it('refuses a second "(" inside parentheses, and a $ORIGIN or $TTL with two values', () => {
    expect(problem('$TTL 1\n@ SOA ( a ( b )\n')).toBe('2:11 a "(" inside parentheses');
    expect(problem('$TTL 1 2\n')).toBe('1:8 $TTL takes one value; found "2" after it');
    expect(problem('$ORIGIN\n')).toBe('1:1 $ORIGIN needs a value');
  });

  it('reads a relative $ORIGIN against the current one, and an owner in a zone read with no origin', () => {
    expect(sets('$TTL 1\n$ORIGIN sub\nwww A 192.0.2.1\n@ A 192.0.2.2\n').map(([name]) => name)).toEqual(['www.sub.example.com A', 'sub.example.com A']);
    expect(parseZoneFile('$TTL 1\nwww A 192.0.2.1\nhost.other. A 192.0.2.2\n', { file: FILE, origin: '' }).recordSets.map((s) => s.name)).toEqual(['www', 'host.other']);
  });
});

describe('parseZoneFile at the edges of its grammar', () => {
  it('skips lines of blanks and comments, and reads a comment or a quote that the file ends in', () => {
    expect(sets('$TTL 1\n   \n \t; c\nwww A 192.0.2.1\n')).toEqual([['www.example.com A', 1, [['192.0.2.1']]]]);
    expect(sets('$TTL 1\nwww A 192.0.2.1 ; last')).toEqual([['www.example.com A', 1, [['192.0.2.1']]]]);
    expect(problem('$TTL 1\ntxt TXT "abc')).toBe('2:9 unterminated quoted string');
    // A quoted string never runs on to the next line, even where a quote closes it there.
    expect(problem('$TTL 1\ntxt TXT "ab\ncd"\n')).toBe('2:9 unterminated quoted string');
  });

  it('ends a bare token at a parenthesis', () => {
    expect(sets('$TTL 1\nt TXT a(b)c\n')).toEqual([['t.example.com TXT', 1, [['a', 'b', 'c']]]]);
  });

  it('keeps the $TTL in force when a later $TTL is refused, and drops a record whose TTL is refused', () => {
    const afterBad = parse('$TTL 60\n$TTL 1x\nwww A 192.0.2.1\n');
    expect(afterBad.diagnostics).toHaveLength(1);
    expect(afterBad.recordSets.map((s) => s.ttl)).toEqual([60]);
    const badRecord = parse('www 1x A 192.0.2.1\n$TTL 5\nb A 192.0.2.1\n');
    expect(badRecord.diagnostics.map((d) => d.summary)).toEqual(['TTL "1x" is not a TTL (seconds, or units such as 1h30m, 1d, 1w)']);
    expect(badRecord.recordSets.map((s) => s.name)).toEqual(['b.example.com']);
  });

  it('reads at most one class and one TTL before the type, and only a token starting with a digit as a TTL', () => {
    expect(problem('$TTL 1\nwww 300\n')).toBe('2:8 the record of www.example.com has no type');
    expect(problem('$TTL 1\nwww 60 70 A 192.0.2.1\n')).toBe('2:8 expected a record type, found "70"');
    // A second class word, or a word with a digit inside, is the type (and the rest its data).
    expect(sets('$TTL 1\nwww IN IN A 192.0.2.1\n')).toEqual([['www.example.com IN', 1, [['A', '192.0.2.1']]]]);
    expect(sets('$TTL 1\nwww a1 A 192.0.2.1\n')).toEqual([['www.example.com A1', 1, [['A', '192.0.2.1']]]]);
  });

  it('takes as a class only a whole class word (CLASSnn too), and as a type only a whole type word', () => {
    expect(sets('$TTL 1\nwww XIN A 192.0.2.1\nwww INX A 192.0.2.1\n').map(([name]) => name)).toEqual(['www.example.com XIN', 'www.example.com INX']);
    expect(problem('$TTL 1\nwww CLASS12 A 192.0.2.1\n')).toBe('2:5 class CLASS12 is not supported: the platform serves class IN only');
    expect(problem('$TTL 1\nwww CLASS1 A 192.0.2.1\n')).toBe('2:5 class CLASS1 is not supported: the platform serves class IN only');
    expect(problem('$TTL 1\nwww _A 192.0.2.1\n')).toBe('2:5 expected a record type, found "_A"');
    expect(problem('$TTL 1\nwww A_ 192.0.2.1\n')).toBe('2:5 expected a record type, found "A_"');
  });

  it('reads a TTL only as a whole: digits, or units each after its number', () => {
    for (const ttl of ['x1h', '1h2', 'a60', '60a']) expect(problem(`$TTL ${ttl}\n`)).toBe(`1:6 $TTL "${ttl}" is not a TTL (seconds, or units such as 1h30m, 1d, 1w)`);
  });

  it('names a name over 253 characters by its first 40', () => {
    const long = `${Array(70).fill('abc').join('.')}.example.com`;
    expect(problem(`$TTL 60\n${long}. A 192.0.2.1\n`)).toBe(`2:1 owner ${long.slice(0, 40)}... is longer than 253 characters (${long.length})`);
  });
});

describe('parseZoneFile diagnostics, whole', () => {
  it('give each problem its code, the span of the token at fault, and a hint where one helps', () => {
    // The summaries and start positions are in the tests above; this is the rest a JSON reader or an editor gets.
    const cases: Array<[text: string, code: string, span: string, detail: string | undefined]> = [
      ['$TTL 60\n$INCLUDE other.zone\n', 'zone-file-unsupported', '2:1-2:9', 'Copy the included file’s records into this file.'],
      ['$GENERATE 1-10 host$ A 192.0.2.$\n', 'zone-file-unsupported', '1:1-1:10', undefined],
      ['$FOO bar\n', 'zone-file-syntax', '1:1-1:5', undefined],
      ['$TTL\n', 'zone-file-syntax', '1:1-1:5', undefined],
      ['$TTL 1x\n', 'zone-file-ttl', '1:6-1:8', undefined],
      ['$TTL 9999999999\n', 'zone-file-ttl', '1:6-1:16', undefined],
      ['$ORIGIN example.net.\n', 'zone-file-name', '1:9-1:21', undefined],
      ['$TTL 60\nwww CH A 192.0.2.1\n', 'zone-file-unsupported', '2:5-2:7', undefined],
      ['$TTL 60\ntxt TXT "abc\n', 'zone-file-syntax', '2:9-2:9', 'a quoted string ends with " on the same line; write a line break as \\010'],
      ['$TTL 60\n@ SOA a. b. ( 1 2\n 3 4 5\n', 'zone-file-syntax', '2:13-2:13', undefined],
      ['$TTL 60\nwww A 192.0.2.1 )\n', 'zone-file-syntax', '2:17-2:17', undefined],
      ['$TTL 60\nwww 300 IN\n', 'zone-file-syntax', '2:11-2:11', 'A record is: [owner] [TTL] [IN] TYPE DATA...'],
      ['$TTL 60\nwww 300 IN 192.0.2.1\n', 'zone-file-syntax', '2:12-2:21', 'A record is: [owner] [TTL] [IN] TYPE DATA...'],
      ['$TTL 60\nwww A\n', 'zone-file-syntax', '2:6-2:6', undefined],
      ['www 2147483648 A 192.0.2.1\n', 'zone-file-ttl', '1:5-1:15', undefined],
      ['www A 192.0.2.1\n', 'zone-file-ttl', '1:5-1:6', undefined],
      ['$TTL 60\nwww.example.net. A 192.0.2.1\n', 'zone-file-name', '2:1-2:17', undefined],
      ['   A 192.0.2.1\n', 'zone-file-syntax', '1:1-1:1', undefined],
      ['$TTL 60\na..b A 192.0.2.1\n', 'zone-file-name', '2:1-2:5', undefined],
      [`$TTL 60\n${'a'.repeat(64)} A 192.0.2.1\n`, 'zone-file-name', '2:1-2:65', undefined],
      [`$TTL 60\n${Array(70).fill('abc').join('.')} A 192.0.2.1\n`, 'zone-file-name', '2:1-2:280', undefined],
      ['$TTL 60\nwww 300 A 192.0.2.1\nwww 600 A 192.0.2.2\n', 'zone-file-ttl', '3:5-3:8', 'A record set has one TTL; give every record of it the same.'],
      ['$TTL 60\nwww 300 A 192.0.2.1\nwww A 192.0.2.2\n', 'zone-file-ttl', '3:1-3:1', 'A record set has one TTL; give every record of it the same.'],
      ['$TTL 1 2\n', 'zone-file-syntax', '1:8-1:9', undefined],
      ['$TTL 1\n@ SOA ( a ( b )\n', 'zone-file-syntax', '2:11-2:11', 'the parenthesis opened at 2:7 is still open'],
      ['$TTL 1\nt TXT "\\256"\n', 'zone-file-syntax', '2:8-2:8', undefined],
      ['$TTL 1\nt TXT abc\\', 'zone-file-syntax', '2:10-2:10', undefined],
    ];
    for (const [text, code, span, detail] of cases) {
      const diagnostics = parse(text).diagnostics;
      expect(diagnostics, text).toHaveLength(1);
      const d = diagnostics[0]!;
      expect([d.severity, d.code, `${d.range!.start.line}:${d.range!.start.column}-${d.range!.end.line}:${d.range!.end.column}`, d.detail], text).toEqual([
        'error',
        code,
        span,
        detail,
      ]);
      expect(Object.hasOwn(d, 'detail'), text).toBe(detail !== undefined);
    }
  });
});

describe('formatZoneFile', () => {
  it('writes $ORIGIN and one line per record, owners relative, data quoted where needed', () => {
    const text = formatZoneFile('example.com.', [
      { name: 'example.com', type: 'mx', ttl: 300, records: [{ rdata: ['10', 'mx.example.com.'] }] },
      { name: 'www.example.com', type: 'TXT', ttl: 60, records: [{ rdata: ['a "b"; c', 'd\\e', ''] }] },
    ]);
    expect(text).toBe('$ORIGIN example.com.\n@ 300 IN MX 10 mx.example.com.\nwww 60 IN TXT "a \\"b\\"; c" "d\\\\e" ""\n');
  });

  it('escapes what an owner cannot hold bare, writes names outside the origin absolute, and escapes controls and DEL in data', () => {
    const one = (name: string, rdata = ['x']) => ({ name, type: name.startsWith('host') ? 'TXT' : 'A', ttl: 1, records: [{ rdata }] });
    const text = formatZoneFile('example.com', [
      one('a b.example.com'),
      one('@.example.com'),
      one('$x.example.com'),
      one('x$.example.com'),
      one('notexample.com'),
      one('host.other', ['$x', 'x$', 'a\u007fb', 'c\u0001']),
    ]);
    expect(text).toBe(
      '$ORIGIN example.com.\na\\ b 1 IN A x\n\\@ 1 IN A x\n\\$x 1 IN A x\nx$ 1 IN A x\nnotexample.com. 1 IN A x\nhost.other. 1 IN TXT "$x" x$ "a\\127b" "c\\001"\n',
    );
    expect(formatZoneFile('', [one('www.example.com')])).toBe('$ORIGIN .\nwww.example.com. 1 IN A x\n');
  });

  it('writes what parseZoneFile reads back as the same record sets (TXT with quotes, backslashes, semicolons, controls and any code point)', () => {
    const label = fc.stringMatching(/^[a-z0-9_][a-z0-9_-]{0,9}$/);
    const owner = fc.oneof(
      fc.constant(''),
      fc.constant('*'),
      fc.array(label, { minLength: 1, maxLength: 3 }).map((l) => l.join('.')),
    );
    const token = fc.oneof(anyString({ maxLength: 20 }), fc.constantFrom('"', '\\', ';', '(', ')', '@', '$TTL', ' ', '\n', '\\059', '""'));
    const set = fc.record({
      owner,
      type: fc.constantFrom('A', 'TXT', 'MX', 'CAA', 'SRV', 'HTTPS'),
      ttl: fc.integer({ min: 0, max: MAX_ZONE_TTL }),
      records: fc.array(fc.array(token, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(set, { selector: (s) => `${s.owner} ${s.type}`, maxLength: 6 }), (drawn) => {
        const input = drawn.map((s) => ({
          name: s.owner === '' ? 'example.com' : `${s.owner}.example.com`,
          type: s.type,
          ttl: s.ttl,
          records: s.records.map((rdata) => ({ rdata })),
        }));
        const text = formatZoneFile('example.com', input);
        const result = parseZoneFile(text, { file: 'x.zone', origin: 'example.com' });
        expect(result.diagnostics).toEqual([]);
        const strip = (sets: ZoneRecordSet[]) => sets.map((s) => ({ name: s.name, type: s.type, ttl: s.ttl, records: s.records.map((r) => ({ rdata: r.rdata })) }));
        expect(strip(result.recordSets)).toEqual(input);
      }),
      { numRuns: 300 },
    );
  });
});
