import { describe, expect, it } from 'vitest';
import type { EmulatorFixtures } from '../../../src/emulator/index.js';
import { streamingAiTasks } from '../../../src/kinds/streaming-ai-tasks/provider.js';
import { createApiClient } from '../../../src/api/client.js';
import { EdgeformError } from '../../../src/errors.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { startLoopbackServer } from '../../helpers/loopback-server.js';
import { type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';

const LIST = '/streaming/ai/tasks';

/** A UUID made from a number, so seeded task ids are stable and distinct. */
const uuidOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** 130 failed transcriptions (two pages of 100) and 5 successful content moderations. */
const manyTasks: EmulatorFixtures = {
  ai_tasks: [
    ...Array.from({ length: 130 }, (_, i) => ({
      task_id: uuidOf(i + 1),
      task_name: 'transcription' as const,
      status: 'FAILURE' as const,
      created_at: new Date(Date.UTC(2025, 11, 1, 0, i)).toISOString(),
    })),
    ...Array.from({ length: 5 }, (_, i) => ({
      task_id: uuidOf(1000 + i),
      task_name: 'content-moderation' as const,
      status: 'SUCCESS' as const,
      created_at: new Date(Date.UTC(2025, 11, 2, 0, i)).toISOString(),
    })),
  ],
};

describe('streaming_ai_tasks check on the demo world', () => {
  let emu: TestEmulator;
  let h: ProviderHarness;
  useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

  it('passes when no task matches and max_count is 0', async () => {
    const outcome = await streamingAiTasks.evaluate(h.ctx, { where: { task_name: 'transcription', status: 'FAILURE' }, max_count: 0 });
    expect(outcome).toMatchObject({ status: 'pass', message: '0 tasks match (max 0)', details: { count: 0, task_ids: [] } });
  });

  it('fails when more tasks match than max_count, naming them', async () => {
    const outcome = await streamingAiTasks.evaluate(h.ctx, { where: { status: 'FAILURE' }, max_count: 0 });
    expect(outcome).toMatchObject({ status: 'fail', message: '1 task matches (max 0): 93d544be-eeee-4355-af02-14835508e050' });
  });

  it('fails when fewer tasks match than min_count', async () => {
    const outcome = await streamingAiTasks.evaluate(h.ctx, { where: { status: 'SUCCESS' }, min_count: 13 });
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toMatch(/^12 tasks match \(min 13\): /);
  });

  it('sends every filter of where to the list endpoint', async () => {
    await streamingAiTasks.evaluate(h.ctx, { where: { task_name: 'transcription', status: 'PENDING', date_created: '2025-12-14T11:31:00Z', search: 'demo-14' }, max_count: 5 });
    expect(h.sent).toEqual([
      {
        method: 'GET',
        path: LIST,
        query: { task_name: 'transcription', status: 'PENDING', date_created: '2025-12-14T11:31:00Z', search: 'demo-14', page: '1', limit: '100' },
      },
    ]);
  });

  it('retries a 503 once with one recorded backoff and then counts', async () => {
    emu.faults.failNext({ method: 'GET', path: LIST, status: 503, count: 1 });
    expect((await streamingAiTasks.evaluate(h.ctx, { where: { status: 'PENDING' }, max_count: 5 })).status).toBe('pass');
    expect(h.retryDelays).toEqual([250]);
  });
});

describe('streaming_ai_tasks check over several pages', () => {
  let emu: TestEmulator;
  let h: ProviderHarness;
  useProviderHarness(
    (e, harness) => {
      emu = e;
      h = harness;
    },
    { fixtures: manyTasks },
  );

  it('follows the next pages and counts every matching task', async () => {
    const outcome = await streamingAiTasks.evaluate(h.ctx, { where: { task_name: 'transcription', status: 'FAILURE' }, max_count: 0 });
    expect(outcome.status).toBe('fail');
    expect(outcome.details?.count).toBe(130);
    expect(new Set(outcome.details?.task_ids as string[]).size).toBe(130);
    expect(outcome.message).toMatch(/^130 tasks match \(max 0\): .*, … \(125 more\)$/);
    expect(h.sent.map((r) => r.query?.page)).toEqual(['1', '2']);
  });

  it('passes min_count when the matches span pages', async () => {
    const outcome = await streamingAiTasks.evaluate(h.ctx, { where: { status: 'FAILURE' }, min_count: 101, max_count: 130 });
    expect(outcome).toMatchObject({ status: 'pass', details: { count: 130 } });
  });

  it('reads one page when the matches fit in it', async () => {
    const outcome = await streamingAiTasks.evaluate(h.ctx, { where: { status: 'SUCCESS' }, min_count: 5 });
    expect(outcome).toMatchObject({ status: 'pass', details: { count: 5 } });
    expect(emu.requests).toHaveLength(1);
  });
});

describe('streaming_ai_tasks check on a platform that pages wrongly', () => {
  /** Evaluates the check against a loopback platform answering each page request with `answer(page)`. */
  async function evaluateAgainst(answer: (page: number) => { next: string | null; results: Array<{ task_id: string }> }) {
    const server = await startLoopbackServer((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer(page)));
    });
    const api = createApiClient({ baseUrl: server.url, apiKey: 'k$ey', random: () => 0 });
    try {
      const outcome = await streamingAiTasks.evaluate(createProviderContext({ api }), { where: { task_name: 'transcription' }, max_count: 10 }).catch((e: unknown) => e);
      return { outcome, pages: server.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('page')) };
    } finally {
      await api.close();
      await server.close();
    }
  }

  it('fails with EDGEFORM_PAGING, without following it further, when a next link leads back to a page already read', async () => {
    const { outcome, pages } = await evaluateAgainst((page) => ({ next: page === 3 ? 'page=2' : `page=${page + 1}`, results: [{ task_id: `t${page}` }] }));
    expect(outcome).toBeInstanceOf(EdgeformError);
    expect((outcome as EdgeformError).code).toBe('EDGEFORM_PAGING');
    expect((outcome as EdgeformError).message).toBe('the list GET /streaming/ai/tasks repeated a page; edgeform stopped following it');
    expect(pages).toEqual(['1', '2', '3']);
  });

  it('fails with EDGEFORM_PAGING when a page brings no task it had not seen', async () => {
    const { outcome, pages } = await evaluateAgainst((page) => ({ next: `page=${page + 1}`, results: [{ task_id: 'same' }] }));
    expect((outcome as EdgeformError).message).toBe('the list GET /streaming/ai/tasks repeated a page; edgeform stopped following it');
    expect(pages).toEqual(['1', '2']);
  });

  it('counts a task listed on two pages once', async () => {
    const { outcome } = await evaluateAgainst((page) => ({
      next: page === 1 ? 'page=2' : null,
      results: page === 1 ? [{ task_id: 'a' }, { task_id: 'b' }] : [{ task_id: 'b' }, { task_id: 'c' }],
    }));
    expect(outcome).toMatchObject({ status: 'pass', details: { count: 3, task_ids: ['a', 'b', 'c'] } });
  });
});
