import { describe, expect, it } from 'vitest';
import { createColors } from '../../../src/render/colors.js';
import { planTextChunks, renderPlanText, SUMMARISED_CREATES } from '../../../src/render/plan-text.js';
import { change, check, plan } from '../../helpers/plan.js';

const fip = change({
  address: 'cloud_floating_ip.web_ip',
  action: 'update',
  changes: [
    { path: ['tags', 'env'], op: 'update', before: 'staging', after: 'prod' },
    { path: ['tags', 'owner'], op: 'remove', before: 'alice' },
    { path: ['tags', 'tier'], op: 'add', after: 'gold' },
  ],
  unchanged_elements: { tags: 1 },
});
const vm = change({
  address: 'cloud_instance.web_vm',
  action: 'update',
  changes: [{ path: ['flavor_id'], op: 'update', before: 'g2-standard-2-4', after: 'g2-standard-4-8' }],
});
const app = change({ address: 'fastedge_app.legacy_app', action: 'delete', before: { app_id: 1234, name: 'legacy-app' } });

describe('renderPlanText', () => {
  it('comes in chunks of whole lines that make the same text, so a large plan is written as it is rendered', () => {
    const many = Array.from({ length: 600 }, (_, i) =>
      change({ address: `cloud_floating_ip.ip_${i}`, action: 'update', changes: [{ path: ['tags', 'env'], op: 'update', before: 'staging', after: 'prod' }] }),
    );
    for (const changes of [[fip, vm, app], many]) {
      const chunks = [...planTextChunks(plan(changes))];
      expect(chunks.join('')).toBe(renderPlanText(plan(changes)));
      for (const chunk of chunks) expect(chunk.endsWith('\n')).toBe(true);
      if (changes === many) expect(chunks.length).toBeGreaterThan(4);
      else expect(chunks).toHaveLength(1);
    }
  });

  it('shows a legend, the addresses by action, changed fields only and the summary', () => {
    const text = renderPlanText(plan([fip, vm, app], [check({ address: 'streaming_video_subtitles.subs', status: 'pass', message: 'eng, ger present' })]));
    expect(text).toBe(
      [
        'Resource actions are indicated with the following symbols:',
        '   ~ update in-place',
        '   - destroy',
        '  <= read (checks)',
        '',
        'edgeform will perform the following actions:',
        '',
        '   ~ cloud_floating_ip.web_ip',
        '   ~ cloud_instance.web_vm',
        '   - fastedge_app.legacy_app',
        '',
        '  # cloud_floating_ip.web_ip will be updated in-place',
        '   ~ cloud_floating_ip.web_ip',
        '    ~ tags:',
        '        ~ "env"   = "staging" -> "prod"',
        '        - "owner" = "alice"',
        '        + "tier"  = "gold"',
        '          # (1 unchanged element hidden)',
        '',
        '  # cloud_instance.web_vm will be updated in-place',
        '   ~ cloud_instance.web_vm',
        '    ~ flavor_id: "g2-standard-2-4" -> "g2-standard-4-8"',
        '',
        '  # fastedge_app.legacy_app will be destroyed',
        '   - fastedge_app.legacy_app',
        '      app_id: 1234',
        '      name: "legacy-app"',
        '',
        'Checks:',
        '  <= streaming_video_subtitles.subs: passed: eng, ger present',
        '',
        'Plan: 0 to add, 2 to change, 1 to destroy.',
        '',
      ].join('\n'),
    );
  });

  it('says there are no changes when everything matches', () => {
    const text = renderPlanText(plan([change({ address: 'cloud_instance.web_vm', action: 'no-op' })]));
    expect(text).toBe('No changes. Your infrastructure matches the configuration.\n');
  });

  it('does not print "No changes" as if all were well when checks fail: it counts the failing checks', () => {
    const checks = [
      check({ address: 'streaming_video_subtitles.subs', status: 'fail', message: 'missing languages: ger' }),
      check({ address: 'streaming_ai_tasks.none_failed', status: 'error', message: 'could not list tasks' }),
      check({ address: 'streaming_ai_tasks.ok', status: 'pass', message: '0 tasks match' }),
    ];
    const text = renderPlanText(plan([change({ address: 'cloud_instance.web_vm', action: 'no-op' })], checks));
    expect(text.trimEnd().split('\n').at(-1)).toBe('No changes to resources; 2 of 3 checks failing.');
    expect(text).not.toContain('matches the configuration');
  });

  it('shows multi-line values as a unified diff', () => {
    const text = renderPlanText(
      plan([change({ address: 'cloud_instance.web_vm', action: 'update', changes: [{ path: ['script'], op: 'update', before: 'a\nb\nc\n', after: 'a\nB\nc\n' }] })]),
    );
    expect(text).toContain(['    ~ script:', '        @@ -1,3 +1,3 @@', '         a', '        -b', '        +B', '         c'].join('\n'));
  });

  it('shows notes and lock warnings under the resource', () => {
    const text = renderPlanText(
      plan([
        change({
          address: 'cloud_k8s_cluster.prod',
          action: 'update',
          changes: [{ path: ['version'], op: 'update', before: 'v1.29.8', after: 'v1.31.3' }],
          notes: ['upgrade path: v1.29.8 -> v1.30.6 -> v1.31.3'],
          warnings: ['locked by running platform task t-1'],
        }),
      ]),
    );
    expect(text).toContain('      ! locked by running platform task t-1\n    ~ version: "v1.29.8" -> "v1.31.3"\n      # upgrade path: v1.29.8 -> v1.30.6 -> v1.31.3\n');
  });

  it('marks failing checks and prints diagnostics through the given formatter', () => {
    const p = plan([], [check({ address: 'streaming_ai_tasks.no_failures', status: 'fail', message: '2 tasks match (max 0)' })], {
      diagnostics: [{ severity: 'error', code: 'plan-error', summary: 'reading x failed' }],
    });
    const text = renderPlanText(p, { formatDiagnostics: (d) => `DIAG ${d.length}` });
    expect(text).toContain('  <= streaming_ai_tasks.no_failures: FAILED: 2 tasks match (max 0)\n');
    expect(text).toContain('DIAG 1\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('Plan failed: 1 error; nothing can be applied until it is fixed.');
  });

  it('shows a long created map key by key and a long created list element by element; short ones stay on one line', () => {
    const created = change({
      address: 'cdn_resource.site',
      action: 'create',
      before: null,
      after: {
        cname: 'cdn.example.com',
        secondary_hostnames: ['static.example.com'],
        options: { gzipOn: { enabled: true, value: true }, edge_cache_settings: { enabled: true, value: '4d' }, cors: { enabled: true, value: ['*'] } },
        origins: [
          { source: 'origin-1.example.com', backup: false, enabled: true },
          { source: 'origin-2.example.com', backup: true, enabled: true },
        ],
      },
    });
    expect(renderPlanText(plan([created]))).toContain(
      [
        '    + cname: "cdn.example.com"',
        '    + secondary_hostnames: ["static.example.com"]',
        '    + options:',
        '        + "gzipOn"              = {"enabled":true,"value":true}',
        '        + "edge_cache_settings" = {"enabled":true,"value":"4d"}',
        '        + "cors"                = {"enabled":true,"value":["*"]}',
        '    + origins: [',
        '        {"source":"origin-1.example.com","backup":false,"enabled":true},',
        '        {"source":"origin-2.example.com","backup":true,"enabled":true},',
        '      ]',
      ].join('\n'),
    );
  });

  it('shows a change of a long list as the elements removed and added, in order, and counts those kept', () => {
    const origin = (source: string, backup = false) => ({ source, backup, enabled: true });
    const updated = change({
      address: 'cdn_origin_group.origins',
      action: 'update',
      changes: [
        { path: ['origins'], op: 'update', before: [origin('a.example.com'), origin('b.example.com', true)], after: [origin('a.example.com'), origin('c.example.com', true)] },
      ],
    });
    expect(renderPlanText(plan([updated]))).toContain(
      [
        '    ~ origins: [',
        '        - {"source":"b.example.com","backup":true,"enabled":true},',
        '        + {"source":"c.example.com","backup":true,"enabled":true},',
        '          # (1 unchanged element hidden)',
        '      ]',
      ].join('\n'),
    );
    // A short list change stays on one line.
    const short = change({
      address: 'cdn_resource.site',
      action: 'update',
      changes: [{ path: ['secondary_hostnames'], op: 'update', before: ['a.example.com'], after: ['b.example.com'] }],
    });
    expect(renderPlanText(plan([short]))).toContain('    ~ secondary_hostnames: ["a.example.com"] -> ["b.example.com"]\n');
  });

  it('uses ANSI colours only when its colouriser is on', () => {
    expect(renderPlanText(plan([vm]), { colors: createColors(true) })).toContain('\u001b[');
    expect(renderPlanText(plan([vm]), { colors: createColors(false) })).not.toContain('\u001b[');
    expect(renderPlanText(plan([vm]))).not.toContain('\u001b[');
  });
});

describe('a long plan in text', () => {
  const rrset = (i: number) =>
    change({ address: `dns_rrset.main/h${i}.example.com/A`, action: 'create', after: { zone: 'example.com', name: `h${i}.example.com`, record_type: 'A', ttl: 300 } });
  const zone = change({ address: 'dns_zone.main', action: 'create', after: { name: 'example.com' } });

  it('summarises more than SUMMARISED_CREATES creates of one kind: counts per kind, the first and last few, and where to see every change', () => {
    const creates = Array.from({ length: 10_000 }, (_, i) => rrset(i));
    const text = renderPlanText(plan([zone, ...creates, vm]));
    expect(text).toContain(['Changes by kind:', '  dns_zone: 1 to add', '  dns_rrset: 10000 to add', '  cloud_instance: 1 to change', ''].join('\n'));
    for (const i of [0, 1, 2, 3, 4, 9995, 9996, 9997, 9998, 9999]) {
      expect(text).toContain(`   + dns_rrset.main/h${i}.example.com/A\n`);
      expect(text).toContain(`  # dns_rrset.main/h${i}.example.com/A will be created`);
    }
    expect(text).not.toContain('h5.example.com');
    expect(text).not.toContain('h9994.example.com');
    expect(text).toContain('      ... 9990 more dns_rrset creates (every change: edgeform plan --format json)\n');
    expect(text).toContain('  # ... 9990 more dns_rrset creates are not shown (every change: edgeform plan --format json)\n');
    // The zone and the update are shown whole; the text stays small.
    expect(text).toContain('  # dns_zone.main will be created');
    expect(text).toContain('    ~ flavor_id: "g2-standard-2-4" -> "g2-standard-4-8"');
    expect(text.length).toBeLessThan(6_000);
    expect([...planTextChunks(plan([zone, ...creates]))].join('')).toBe(renderPlanText(plan([zone, ...creates])));
  });

  it(`shows every create of a kind up to SUMMARISED_CREATES (${SUMMARISED_CREATES}), and no counts per kind`, () => {
    const text = renderPlanText(plan(Array.from({ length: SUMMARISED_CREATES }, (_, i) => rrset(i))));
    expect(text).not.toContain('Changes by kind');
    expect(text).not.toContain('more dns_rrset creates');
    expect(text.match(/will be created/g)).toHaveLength(SUMMARISED_CREATES);
  });
});
