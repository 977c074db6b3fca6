import { describe, expect, it } from 'vitest';
import type { ApplyOutcome } from '../../../src/apply/outcome.js';
import { buildDriftReport } from '../../../src/plan/drift.js';
import { createTextApplyView, summaryLines } from '../../../src/render/apply-view.js';
import { createColors } from '../../../src/render/colors.js';
import { renderDriftMarkdown, renderDriftText } from '../../../src/render/drift.js';
import { renderPlanMarkdown } from '../../../src/render/plan-markdown.js';
import { renderPlanText } from '../../../src/render/plan-text.js';
import { change, check, plan } from '../../helpers/plan.js';
import { writingTo } from '../../helpers/view-output.js';

/**
 * Platform values reach every view: a tag key or value, a task id, a task's or the platform's
 * error message. None of them may write a raw control character (an OSC sequence sets the
 * terminal title or clipboard, CSI moves the cursor, bidi overrides reorder the line), and in
 * Markdown none may leave its code span (HTML, links, mentions, table cells).
 */

// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const EVIL_KEY = 'evil\u001b]0;owned\u0007\u001b[2J\u202e';
const EVIL_KEY_SHOWN = 'evil\\u001b]0;owned\\u0007\\u001b[2J\\u202e';
const EVIL_VALUE = 'v\u009b31m\u2066`|<img src=x>';
const EVIL_MESSAGE = 'Quota exceeded\u001b]52;c;ZWNobyBvd25lZA==\u0007 \u001b[1A';

const fip = change({
  address: 'cloud_floating_ip.web_ip',
  action: 'update',
  changes: [
    { path: ['tags', EVIL_KEY], op: 'remove', before: EVIL_VALUE },
    { path: ['tags', 'env'], op: 'update', before: 'staging', after: 'prod' },
    { path: ['description'], op: 'update', before: `line 1\nline 2 ${EVIL_KEY}`, after: 'line 1\nline 2' },
  ],
  warnings: [`locked by task ${EVIL_KEY}`],
  notes: [EVIL_MESSAGE],
});
const app = change({ address: 'fastedge_app.old', action: 'delete', before: { [EVIL_KEY]: EVIL_VALUE } });
const subtitles = check({ address: 'streaming_video_subtitles.subs', status: 'fail', message: `missing ${EVIL_MESSAGE}` });
const thePlan = plan([fip, app], [subtitles]);

describe('no view writes a raw control character from a platform value', () => {
  it('plan text shows tag keys, values, warnings, notes, multi-line diffs and check messages escaped', () => {
    const text = renderPlanText(thePlan);
    expect(text).not.toMatch(RAW_CONTROL);
    expect(text).toContain(`- "${EVIL_KEY_SHOWN}" = "v\\u009b31m\\u2066\`|<img src=x>"`);
    expect(text).toContain(`        -line 2 ${EVIL_KEY_SHOWN}`);
    expect(text).toContain(`      "${EVIL_KEY_SHOWN}"`.trim());
    expect(text).toContain('# Quota exceeded\\u001b]52;c;ZWNobyBvd25lZA==\\u0007 \\u001b[1A');
    expect(text).toContain('missing Quota exceeded\\u001b]52;');
  });

  it('plan Markdown keeps the escaped text plan inside a fence it cannot close', () => {
    const md = renderPlanMarkdown(thePlan, renderPlanText(thePlan), { stackLabel: 'stack.yaml' });
    expect(md).not.toMatch(RAW_CONTROL);
    const fence = /^(`{3,})diff$/m.exec(md)![1]!;
    const inside = md.slice(md.indexOf(`${fence}diff\n`) + fence.length + 5, md.lastIndexOf(`\n${fence}\n`));
    expect(inside).toContain('<img src=x>');
    expect(inside).not.toContain(`\n${fence}`);
  });

  it('drift text shows the field path with the tag key on its own line, escaped', () => {
    const text = renderDriftText(buildDriftReport(thePlan));
    expect(text).not.toMatch(RAW_CONTROL);
    expect(text).toContain(`tags.${EVIL_KEY_SHOWN}  stack: (absent)  platform: "v\\u009b31m\\u2066\`|<img src=x>"`);
    expect(text).toContain('check failed: missing Quota exceeded\\u001b]52;');
  });

  it('drift Markdown puts platform text in code spans: no HTML, no split table row, no raw control', () => {
    const md = renderDriftMarkdown(buildDriftReport(thePlan), 'stack.yaml');
    expect(md).not.toMatch(RAW_CONTROL);
    const row = md.split('\n').find((l) => l.includes('owned'))!;
    expect(row).toBe(`| \`cloud_floating_ip.web_ip\` | \`tags.${EVIL_KEY_SHOWN}\` | _absent_ | \`\`"v\\u009b31m\\u2066\`\\|<img src=x>"\`\` |`);
    // Four cells: the only pipes a GFM row splitter takes are the five borders.
    expect(row.match(/(^|[^\\])(\\\\)*\|/g)).toHaveLength(5);
    expect(md).toContain('- `streaming_video_subtitles.subs`: `missing Quota exceeded\\u001b]52;c;ZWNobyBvd25lZA==\\u0007 \\u001b[1A`');
  });

  it('the apply view escapes task ids, progress messages and errors', () => {
    const lines: string[] = [];
    const view = createTextApplyView(writingTo(lines), { verbsOf: () => ['Updating', 'Updated'], now: () => 0 });
    view.onStart!(fip);
    view.onProgress!(fip, `waiting on task ${EVIL_KEY}`, [EVIL_KEY]);
    view.onFinish!(fip, { address: fip.address, action: 'update', status: 'failed', taskIds: [EVIL_KEY], error: `task failed: ${EVIL_MESSAGE}` });
    const outcome: ApplyOutcome = {
      interrupted: false,
      aborted: false,
      resources: [{ address: fip.address, action: 'update', status: 'failed', taskIds: [EVIL_KEY], error: EVIL_MESSAGE }],
    };
    const all = [...lines, ...summaryLines(outcome)].join('\n');
    expect(all).not.toMatch(RAW_CONTROL);
    expect(lines[1]).toBe(`cloud_floating_ip.web_ip: waiting on task ${EVIL_KEY_SHOWN}`);
    expect(lines[2]).toBe('cloud_floating_ip.web_ip: Updating failed after 0s [task evil\\u001b]0;…]: task failed: Quota exceeded\\u001b]52;c;ZWNobyBvd25lZA==\\u0007 \\u001b[1A');
    expect(all).toContain(`cloud_floating_ip.web_ip (update) [task ${EVIL_KEY_SHOWN}]: Quota exceeded\\u001b]52;`);
  });

  describe('with colour on', () => {
    const colors = createColors(true);

    it('writes only its own colour sequences, never one from a value', () => {
      const text = renderPlanText(thePlan, { colors }) + renderDriftText(buildDriftReport(thePlan), colors);
      expect(text).toContain('\u001b[33m~\u001b[39m');
      // eslint-disable-next-line no-control-regex
      const withoutColour = text.replace(/\u001b\[[0-9;]*m/g, '');
      expect(withoutColour).not.toMatch(RAW_CONTROL);
      expect(text).not.toContain('\u001b[2J');
    });
  });
});
