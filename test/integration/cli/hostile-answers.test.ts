/**
 * `edgeform plan` against a fake platform that answers 200 with shapes the platform should never
 * send: the user sees an error naming the resource address, the request and the field, exit 1,
 * and no stack trace or "bug in edgeform".
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { HOSTILE_SHAPES, MiB, writeHostileAnswer, type HostileAnswer, type HugeOutcome } from '../../helpers/hostile-answers.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const KEY = '29841$c767b250c767b250c767b250c767b250';
const FIP = '726ecfcc-7fd0-4e30-a86e-7892524aa483';
const FIP_PATH = `/cloud/v1/floatingips/1/76/${FIP}`;
const SUBTITLES_PATH = '/streaming/videos/9876/subtitles';

const STACK = `version: 1
defaults:
  project_id: 1
  region_id: 76
resources:
  web_ip:
    type: cloud_floating_ip
    floating_ip_id: ${FIP}
    tags: { env: prod }
  legacy_app:
    type: fastedge_app
    app_id: 1234
    ensure: absent
checks:
  subtitles_ready:
    type: streaming_video_subtitles
    video_id: 9876
    languages: [eng]
`;

const GOOD: Record<string, unknown> = {
  [FIP_PATH]: { id: FIP, floating_ip_address: '203.0.113.10', status: 'ACTIVE', tags: [{ key: 'env', value: 'prod', read_only: false }], task_id: null },
  '/fastedge/v1/apps/1234': { id: 1234, name: 'legacy-app', status: 1 },
  [SUBTITLES_PATH]: [{ id: 1, name: 'English', language: 'eng', vtt: 'WEBVTT' }],
};

let server: LoopbackServer;
let hostile: Record<string, HostileAnswer> = {};
let huge: Promise<HugeOutcome>[] = [];
let stackFile: string;

beforeAll(async () => {
  stackFile = join(writeStackFiles({ 'stack.yaml': STACK }), 'stack.yaml');
  server = await startLoopbackServer((req, res) => {
    const path = req.url.split('?', 1)[0]!;
    const answer = hostile[path];
    if (answer) {
      const written = writeHostileAnswer(res, answer);
      if (answer.kind === 'huge') huge.push(written);
      return;
    }
    void writeHostileAnswer(res, { kind: 'json', body: GOOD[path] ?? null });
  });
});
afterAll(() => server.close());
afterEach(() => {
  hostile = {};
  huge = [];
});

async function plan(): Promise<CliResult> {
  const result = await runCliInProcess(['plan', stackFile], { env: { EDGEFORM_BASE_URL: server.url, EDGEFORM_API_KEY: KEY } });
  for (const text of [result.stdout, result.stderr]) {
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('bug in edgeform');
    expect(text).not.toContain('TypeError');
    expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  }
  return result;
}

describe('edgeform plan against answers of the wrong shape', () => {
  it('a field of the wrong type: exit 1, naming the resource address, the request and the field; the rest is still planned', async () => {
    hostile = { [FIP_PATH]: { kind: 'json', body: { ...(GOOD[FIP_PATH] as object), tags: [{ key: 1, value: 'prod', read_only: false }] } } };
    const result = await plan();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`error: reading cloud_floating_ip.web_ip failed: GET ${FIP_PATH}: unexpected 200 answer: tags.0.key: expected string, got number 1`);
    expect(result.stdout).toContain('  on resource cloud_floating_ip.web_ip');
    expect(result.stdout).toContain('# fastedge_app.legacy_app will be destroyed');
  });

  it('an HTML page for a check: exit 1, naming the check and the request', async () => {
    hostile = { [SUBTITLES_PATH]: HOSTILE_SHAPES['an HTML page (200 text/html)']! };
    const result = await plan();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `check streaming_video_subtitles.subtitles_ready could not be evaluated: GET ${SUBTITLES_PATH}: unexpected 200 answer: expected array, got a text/html answer, not JSON`,
    );
  });

  it('a 50 MB answer: exit 1, naming the resource; the CLI stops reading it', async () => {
    hostile = { [FIP_PATH]: { kind: 'huge', bytes: 50 * MiB, declareLength: false } };
    const result = await plan();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`error: reading cloud_floating_ip.web_ip failed: GET ${FIP_PATH}: the 200 answer is larger than the 16 MiB limit; edgeform stopped reading it`);
    expect(await Promise.all(huge)).toEqual(['closed-early']);
  });
});
