/**
 * Writes whose answer is the resource as the platform stored it (a DNS record set's POST and
 * PUT: ApplyResult `observed`): the answer confirms the change, so apply reads nothing to
 * confirm it (issue 33); an answer that does not fit, or does not show the planned result, is no
 * failure: the executor's reads confirm the change as they would without it. The reads that do
 * confirm a change go ahead of queued requests, as task polls do; the read before acting does not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clientAround, createApiClient, type ApiClient, type ApiResponse } from '../../../src/api/client.js';
import { executePlan, type ConfirmPolicy } from '../../../src/apply/executor.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { demoFixtures, planYaml } from '../../helpers/apply.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';

const ZONE = 'answers.example';
const STACK = `version: 1\nresources:\n  www: { type: dns_rrset, zone: ${ZONE}, name: www, record_type: A, ttl: 120, resource_records: [{ content: [192.0.2.7] }] }\n`;
const quickConfirm: ConfirmPolicy = { attempts: 3, delayMs: () => 0, sleep: () => Promise.resolve() };

const clients: ApiClient[] = [];
let emu: TestEmulator | undefined;
closeAfterEach(() => [...clients.splice(0), emu]);

/** A run's context whose writes' answers pass through `answer` (the platform's own, by default); `seen` gets each request as it is asked for. */
function context(e: TestEmulator, answer: (body: unknown) => unknown = (body) => body, seen?: (req: Parameters<ApiClient['request']>[0]) => void): ProviderContext {
  const platform = createApiClient({ baseUrl: e.url, apiKey: e.apiKey });
  clients.push(platform);
  const api = clientAround(platform, async <T>(req: Parameters<ApiClient['request']>[0]) => {
    seen?.(req);
    const res = (await platform.request(req)) as ApiResponse<unknown>;
    return (req.method === 'GET' ? res : { ...res, body: answer(res.body) }) as ApiResponse<T>;
  });
  return createProviderContext({ api, sleep: async (ms) => void e.clock.advance(ms), now: () => e.clock.now() });
}

async function start(): Promise<TestEmulator> {
  const fixtures = demoFixtures() as ReturnType<typeof demoFixtures> & { dns_zones?: unknown[] };
  fixtures.dns_zones = [...(fixtures.dns_zones ?? []), { name: ZONE, rrsets: [] }];
  return (emu = await startTestEmulator({ fixtures }));
}

/** The requests of the apply after the plan's, as `METHOD route`. */
const applyRequests = async (e: TestEmulator, answer?: (body: unknown) => unknown) => {
  const plan = await planYaml(context(e), e.url, STACK);
  const from = e.requests.length;
  const outcome = await executePlan({ plan, ctx: context(e, answer), providers: providers.resources, maxTasks: 10, confirm: quickConfirm });
  return { outcome, requests: e.requests.slice(from).map((r) => `${r.method} ${r.route}`) };
};

describe("a write answered with what the platform stored (a DNS record set's POST)", () => {
  it('is confirmed by its answer: the read before acting and the POST, no read after', async () => {
    const e = await start();
    const { outcome, requests } = await applyRequests(e);
    expect(outcome.resources).toEqual([expect.objectContaining({ address: 'dns_rrset.www', status: 'applied', id: `${ZONE}/www.${ZONE}/A` })]);
    expect(requests).toEqual(['GET /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}', 'POST /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}']);
  });

  it('whose answer does not fit the record set shape is applied all the same, confirmed by a read', async () => {
    const e = await start();
    const { outcome, requests } = await applyRequests(e, () => ({ surprise: true }));
    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'applied' })]);
    expect(outcome.resources[0]!.warnings).toBeUndefined();
    expect(requests).toEqual([
      'GET /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}',
      'POST /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}',
      'GET /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}',
    ]);
  });

  it('whose answer does not show the planned result is confirmed by reads, which decide', async () => {
    const e = await start();
    const { outcome, requests } = await applyRequests(e, (body) => ({ ...(body as object), ttl: 9999 }));
    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'applied' })]);
    expect(requests.at(-1)).toBe('GET /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}');
  });
});

describe('the reads that confirm a change', () => {
  it('go ahead of the requests waiting for a slot (urgent, as task polls), the read before acting does not', async () => {
    const e = await start();
    const stack = 'version: 1\nresources:\n  app: { type: fastedge_app, name: urgent-app, binary: 1, status: 1 }\n';
    const plan = await planYaml(context(e), e.url, stack);
    const asked: string[] = [];
    const ctx = context(e, undefined, (req) => asked.push(`${req.method} ${req.path.split('?')[0]}${req.urgent === true ? ' urgent' : ''}`));
    const outcome = await executePlan({ plan, ctx, providers: providers.resources, maxTasks: 10, confirm: quickConfirm });
    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'applied' })]);
    const post = asked.findIndex((r) => r.startsWith('POST'));
    expect(post).toBeGreaterThan(0);
    expect(asked.slice(0, post).every((r) => !r.endsWith('urgent'))).toBe(true);
    expect(asked.slice(post + 1).length).toBeGreaterThan(0);
    expect(asked.slice(post + 1).every((r) => r.startsWith('GET') && r.endsWith('urgent'))).toBe(true);
  });
});
