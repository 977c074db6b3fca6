/**
 * A create that failed on the wire: when its request provably never reached the platform (the
 * connection was refused) it is reported as not done, not as an inconsistent result, and the
 * next run creates it; when the connection was lost after the request was sent, the outcome is
 * unknown: the resource is looked up by its ownership tags, never created twice, and the error
 * says what is known.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clientAround, createApiClient, type ApiClient } from '../../../src/api/client.js';
import { createOutageBreaker, createRetryQuota, type OutageBreaker } from '../../../src/api/retry.js';
import { executePlan, type ConfirmPolicy } from '../../../src/apply/executor.js';
import type { ApplyOutcome } from '../../../src/apply/outcome.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import type { Plan } from '../../../src/plan/types.js';
import { planYaml, writesSeen } from '../../helpers/apply.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { closedPort } from '../../helpers/loopback-server.js';

const STACK = 'version: 1\nname: demo\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n  api_ip: { type: cloud_floating_ip, tags: { env: prod, service: api } }\n';
const LIST = '/cloud/v1/floatingips/1/76';
const quickConfirm: ConfirmPolicy = { attempts: 3, delayMs: () => 0, sleep: () => Promise.resolve() };

const clients: ApiClient[] = [];
let emu: TestEmulator | undefined;
closeAfterEach(() => [...clients.splice(0), emu]);

function client(baseUrl: string, apiKey: string, breaker: OutageBreaker): ApiClient {
  const api = createApiClient({ baseUrl, apiKey, retryQuota: createRetryQuota(), outage: breaker, sleep: async () => undefined, random: () => 0 });
  clients.push(api);
  return api;
}

/** A run's context as `connect` builds it (one breaker), its requests going where `route` says. */
function context(e: TestEmulator, route?: { writesTo: string }): ProviderContext {
  const breaker = createOutageBreaker();
  const platform = client(e.url, e.apiKey, breaker);
  const writes = route ? client(route.writesTo, e.apiKey, breaker) : platform;
  const api = clientAround(platform, (req) => (req.method === 'GET' ? platform.request(req) : writes.request(req)));
  return createProviderContext({ api, pollSchedule: { initialMs: 5, maxMs: 5 }, sleep: async (ms) => void e.clock.advance(ms), now: () => e.clock.now() });
}

const execute = (plan: Plan, ctx: ProviderContext): Promise<ApplyOutcome> => executePlan({ plan, ctx, providers: providers.resources, maxTasks: 10, confirm: quickConfirm });
const tagged = (e: TestEmulator) => [...e.state.floatingIps.values()].filter((ip) => ip.tags.some((t) => t.key === 'edgeform-address' && t.value === 'cloud_floating_ip.api_ip'));

describe('a create whose request failed on the wire', () => {
  it('never reached the platform (connection refused): not done, the run error says so, and the next run creates it', async () => {
    const e = (emu = await startTestEmulator({ taskDurationMs: 0 }));
    const plan = await planYaml(context(e), e.url, STACK);
    expect(plan.resource_changes.map((c) => c.action)).toEqual(['create']);

    const outcome = await execute(plan, context(e, { writesTo: await closedPort() }));

    expect(outcome.resources).toEqual([expect.objectContaining({ address: 'cloud_floating_ip.api_ip', status: 'not-started' })]);
    expect(outcome.resources[0]!.error).toBeUndefined();
    expect(outcome.runError).toEqual({
      code: 'EDGEFORM_PLATFORM_UNAVAILABLE',
      message: expect.stringMatching(
        new RegExp(`^the platform at .* is unavailable: POST ${LIST}: connection failed .*ECONNREFUSED.*; the request never reached the platform; not retried`),
      ),
    });
    expect(JSON.stringify(outcome)).not.toContain('inconsistent');
    expect(tagged(e)).toEqual([]);

    // The next run, with the platform back, creates it.
    const ctx = context(e);
    const again = await execute(await planYaml(ctx, e.url, STACK), ctx);
    expect(again.resources).toEqual([expect.objectContaining({ status: 'applied' })]);
    expect(tagged(e)).toHaveLength(1);
  });

  it('a create with a task, lost after it was sent (the connection dropped): looked up by its tags, never sent twice, and the error says it may have reached the platform', async () => {
    const e = (emu = await startTestEmulator({ taskDurationMs: 0 }));
    const ctx = context(e);
    const plan = await planYaml(ctx, e.url, STACK);
    e.faults.dropNext({ method: 'POST', path: LIST, when: 'before' });

    const outcome = await execute(plan, ctx);

    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'failed' })]);
    // The re-read by its tags found nothing started, and a POST is never sent twice: the error says the request may have reached the platform.
    expect(outcome.resources[0]!.error).toMatch(
      /^POST \/cloud\/v1\/floatingips\/1\/76: connection failed .*; the request may have reached the platform; not retried: the request may have reached the platform and is not safe to send twice$/,
    );
    expect(outcome.resources[0]!.error).not.toMatch(/inconsistent result/);
    expect(writesSeen(e)).toEqual([`POST ${LIST}`]);
    expect(tagged(e)).toEqual([]);
  });

  it('a synchronous create (POST, no task) whose connection dropped: outcome unknown, never "inconsistent result", sent once', async () => {
    const e = (emu = await startTestEmulator({ taskDurationMs: 0 }));
    const ctx = context(e);
    const plan = await planYaml(ctx, e.url, 'version: 1\nresources:\n  it: { type: streaming_player, name: made-by-edgeform, autoplay: true }\n');
    expect(plan.resource_changes.map((c) => c.action)).toEqual(['create']);
    e.faults.dropNext({ method: 'POST', path: '/streaming/players', when: 'before' });

    const outcome = await execute(plan, ctx);

    expect(outcome.resources).toEqual([expect.objectContaining({ status: 'failed' })]);
    expect(outcome.resources[0]!.error).toMatch(
      /^streaming_player\.it: no streaming_player matching name "made-by-edgeform" exists after the request\. The outcome is unknown: .*Nothing was sent again/,
    );
    expect(writesSeen(e)).toEqual(['POST /streaming/players']);
  });
});
