import { describe, expect, it } from 'vitest';
import { RESOURCE_KINDS } from '../../../../src/kinds/registry.js';
import { canonicalName, nameProblem, ownerName } from '../../../../src/kinds/dns-names.js';
import { diffRecords } from '../../../../src/kinds/dns-rrset/provider.js';
import { canonicalRecords, contentProblem, normaliseContent, type RecordType } from '../../../../src/kinds/dns-rrset/schema.js';

/** Spellings of one record that the platform stores alike: each pair must normalise to the same content. */
export const EQUIVALENT_CONTENTS: ReadonlyArray<[RecordType, unknown[], unknown[]]> = [
  ['A', [' 192.0.2.1 '], ['192.0.2.1']],
  ['AAAA', ['2001:DB8:0:0:0:0:0:1'], ['2001:db8::1']],
  ['AAAA', ['2001:0db8:0000:0000:0001:0000:0000:0001'], ['2001:db8::1:0:0:1']],
  ['AAAA', ['::FFFF:192.0.2.1'], ['::ffff:c000:201']],
  ['CNAME', ['Target.Example.COM.'], ['target.example.com']],
  ['CNAME', ['bücher.example'], ['xn--bcher-kva.example']],
  ['NS', ['ns1.example.net.'], ['ns1.example.net']],
  ['MX', ['10', 'Mail.Example.com.'], [10, 'mail.example.com']],
  ['SRV', ['0', '5', '5060', 'sip.example.com.'], [0, 5, 5060, 'sip.example.com']],
  ['CAA', ['0', 'ISSUE', '"letsencrypt.org"'], [0, 'issue', 'letsencrypt.org']],
  ['TXT', ['"v=spf1 -all"'], ['v=spf1 -all']],
  ['TXT', ['"say \\"hi\\""'], ['say "hi"']],
];

describe('DNS record content, normalised per type so that a no-op plan stays a no-op', () => {
  it.each(EQUIVALENT_CONTENTS)('%s %j normalises as %j', (type, written, stored) => {
    expect(normaliseContent(type, written)).toEqual(normaliseContent(type, stored));
    expect(normaliseContent(type, written)).toEqual(stored);
  });

  it('finds no change between records written in another order and spelling, and names the ones that differ', () => {
    const live = canonicalRecords('MX', [{ content: [20, 'b.example.com'] }, { content: [10, 'a.example.com'] }]);
    const declared = canonicalRecords('MX', [{ content: ['10', 'A.example.com.'] }, { content: ['20', 'b.example.com.'], enabled: true }]);
    expect(diffRecords(live, declared)).toEqual({ changes: [], unchanged: 2 });
    const changed = canonicalRecords('MX', [{ content: [10, 'a.example.com'], enabled: false }, { content: [30, 'c.example.com'] }]);
    expect(diffRecords(live, changed).changes.map((c) => [c.op, c.path[1]])).toEqual([
      ['update', '10 a.example.com'],
      ['add', '30 c.example.com'],
      ['remove', '20 b.example.com'],
    ]);
  });

  it('refuses contents that are not of their type, naming the element', () => {
    expect(contentProblem('A', ['2001:db8::1'])).toEqual({ index: 0, message: '"2001:db8::1" is not an IPv4 address' });
    expect(contentProblem('AAAA', ['192.0.2.1'])?.message).toBe('"192.0.2.1" is not an IPv6 address');
    expect(contentProblem('MX', ['mail.example.com'])?.message).toContain('has 2 elements (preference, host), not 1');
    expect(contentProblem('MX', [70000, 'mail.example.com'])).toMatchObject({ index: 0 });
    expect(contentProblem('SRV', [0, 5, 'x', 'sip.example.com'])).toEqual({ index: 2, message: 'the SRV port "x" must be an integer 0..65535' });
    expect(contentProblem('CAA', [0, 'issuer', 'ca.example'])).toMatchObject({ index: 1 });
    expect(contentProblem('CNAME', ['bad..name'])).toMatchObject({ index: 0 });
    expect(contentProblem('TXT', ['x'.repeat(256)])).toMatchObject({ index: 0 });
    expect(contentProblem('TXT', ['x'.repeat(255), 'y'])).toBeNull();
  });
});

describe('TXT records at the limits of DNS', () => {
  it('refuses a record whose strings pass 65,535 octets (length octets and UTF-8 counted), and a record set that does', () => {
    expect(contentProblem('TXT', Array(255).fill('x'.repeat(255)))).toBeNull(); // 255 × 256 = 65,280 octets
    expect(contentProblem('TXT', Array(500_000).fill('a'))?.message).toBe(
      'a TXT record of 500000 strings takes 1000000 octets; a DNS record holds at most 65535 (RFC 1035): split it into several records',
    );
    expect(contentProblem('TXT', Array(200).fill('é'.repeat(200)))?.message).toContain('takes 80200 octets');
    const set = { zone: 'example.com', name: 'txt', record_type: 'TXT', resource_records: [1, 2, 3].map((n) => ({ content: Array(100).fill(`${n}${'x'.repeat(254)}`) })) };
    const parsed = RESOURCE_KINDS.dns_rrset.schema.safeParse(set);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['resource_records', 'the TXT records take 76800 octets; a record set is answered in one DNS message, at most 65535 octets (RFC 1035)'],
    ]);
  });
});

describe('DNS names, compared as the platform keeps them', () => {
  it('takes relative, fully qualified, trailing-dot and mixed-case names to one owner name', () => {
    for (const given of ['www', 'WWW', 'www.example.com', 'www.example.com.', 'WWW.Example.Com.']) expect(ownerName(given, 'Example.com.')).toBe('www.example.com');
    expect(ownerName('@', 'example.com')).toBe('example.com');
    expect(ownerName('', 'example.com')).toBe('example.com');
    expect(ownerName('bücher', 'example.com')).toBe('xn--bcher-kva.example.com');
    expect(canonicalName('Ünïcode.Example.')).toBe('xn--ncode-cta3g.example');
    expect(canonicalName('ünïcode.example')).toBe('xn--ncode-cta3g.example');
  });

  it('gives a plain ASCII name (its fast path) what the label-by-label conversion gives: lower case, one trailing dot off', () => {
    const labelByLabel = (name: string) => {
      const bare = name === '.' || !name.endsWith('.') ? name : name.slice(0, -1);
      return name === '.'
        ? name
        : bare
            .split('.')
            .map((label) => label.toLowerCase())
            .join('.');
    };
    for (const name of ['.', 'a.', 'a..', 'WWW.Example.COM', 'www.example.com.', '_dmarc.Example.org', '*.Wild.example', 'x', 'A-B.c_d.'])
      expect(canonicalName(name)).toBe(labelByLabel(name));
    expect(canonicalName(' www.Example.com. ')).toBe('www.example.com');
  });

  it('refuses names that are too long, labels that are too long or malformed, and misplaced wildcards', () => {
    expect(nameProblem(`${'a'.repeat(63)}.example.com`)).toBeNull();
    expect(nameProblem(`${'a'.repeat(64)}.example.com`)).toContain('more than 63');
    expect(nameProblem(Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.'))).toContain('more than 253');
    expect(nameProblem('-bad.example.com')).toContain('may not start or end with "-"');
    expect(nameProblem('a..b')).toContain('empty label');
    expect(nameProblem('*.example.com', true)).toBeNull();
    expect(nameProblem('*.example.com')).toContain('"*" may only be the first label');
    expect(nameProblem('www.*.example.com', true)).toContain('"*" may only be the first label');
    expect(nameProblem('_sip._tcp.example.com', true)).toBeNull();
  });
});
