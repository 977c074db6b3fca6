/**
 * Contract tests of the floating IP create and delete, and of the list's tag filter, against the
 * vendor OpenAPI (test/fixtures/openapi/cloud_api.yaml): answers match the operation's response
 * schema, requests the vendor schema rejects are rejected (400), those it accepts are served.
 */
import { describe, expect, it } from 'vitest';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { expectValid, queryParameterValidator, requestValidator, responseValidator } from '../../helpers/openapi.js';

const CLOUD = 'cloud_api.yaml';
const LIST = '/cloud/v1/floatingips/{project_id}/{region_id}';
const ONE = '/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}';
const TASK = '/cloud/v1/tasks/{task_id}';
const list = '/cloud/v1/floatingips/1/76';

describe('floating IP create and delete: the emulator against the vendor OpenAPI', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000 });

  it('POST create answers TaskIDsSerializer; the created IP matches FloatingIPSerializer while locked and after', async () => {
    const body = { tags: { 'edgeform-stack': 'prod', 'edgeform-address': 'cloud_floating_ip.web' } };
    expectValid(requestValidator(CLOUD, 'POST', LIST), body);
    const res = await emu.call('POST', list, { body });
    expect(res.status).toBe(200);
    expectValid(responseValidator(CLOUD, 'POST', LIST, 200), res.body);
    const id = [...emu.state.floatingIps.values()].find((f) => f.creator_task_id === res.body.tasks[0])!.id;
    const locked = await emu.call('GET', `${list}/${id}`);
    expectValid(responseValidator(CLOUD, 'GET', ONE, 200), locked.body);
    emu.clock.advance(1000);
    expectValid(responseValidator(CLOUD, 'GET', ONE, 200), (await emu.call('GET', `${list}/${id}`)).body);
  });

  it('the finished create task matches TaskSerializer, created_resources included', async () => {
    const res = await emu.call('POST', list, { body: {} });
    emu.clock.advance(1000);
    const task = await emu.call('GET', `/cloud/v1/tasks/${res.body.tasks[0]}`);
    expectValid(responseValidator(CLOUD, 'GET', TASK, 200), task.body);
    expect(task.body.created_resources.floatingips).toHaveLength(1);
  });

  it('DELETE answers TaskIDsSerializer', async () => {
    const res = await emu.call('DELETE', `${list}/${DEMO.fipDown}`);
    expect(res.status).toBe(200);
    expectValid(responseValidator(CLOUD, 'DELETE', ONE, 200), res.body);
  });

  it('the list filtered by tag_key_value matches FloatingIPDetailedCollectionSerializer, and the filter is a valid query parameter', async () => {
    const filter = JSON.stringify({ 'edgeform-stack': 'prod' });
    expect(queryParameterValidator(CLOUD, 'GET', LIST, 'tag_key_value')(filter)).toBe(true);
    await emu.call('POST', list, { body: { tags: { 'edgeform-stack': 'prod' } } });
    const res = await emu.call('GET', `${list}?tag_key_value=${encodeURIComponent(filter)}&limit=1000&offset=0`);
    expect(res.status).toBe(200);
    expectValid(responseValidator(CLOUD, 'GET', LIST, 200), res.body);
    expect(res.body.count).toBe(1);
  });

  const rejected: Array<{ name: string; body: unknown }> = [
    { name: 'tags as a list', body: { tags: ['env'] } },
    { name: 'a tag value null', body: { tags: { env: null } } },
    { name: 'an empty tag value', body: { tags: { env: '' } } },
    { name: 'a tag value with a tab', body: { tags: { env: 'a\tb' } } },
    { name: 'a numeric tag value', body: { tags: { env: 1 } } },
    { name: 'a 256-character tag key', body: { tags: { ['k'.repeat(256)]: 'v' } } },
    { name: 'a port_id that is not a UUID', body: { port_id: 'port-1' } },
    { name: 'a fixed_ip_address that is not IPv4', body: { port_id: 'ee2402d0-f0cd-4503-9b75-69be1d11c5f1', fixed_ip_address: 'ten' } },
  ];

  it.each(rejected)('rejects a create the vendor schema rejects: $name', async ({ body }) => {
    expect(requestValidator(CLOUD, 'POST', LIST)(body)).toBe(false);
    expect((await emu.call('POST', list, { body })).status).toBe(400);
  });

  const accepted: Array<{ name: string; body: unknown }> = [
    { name: 'no fields', body: {} },
    { name: 'tags', body: { tags: { env: 'prod', 'edgeform-stack': 'prod' } } },
    { name: 'a port and its fixed IP', body: { port_id: 'ee2402d0-f0cd-4503-9b75-69be1d11c5f1', fixed_ip_address: '192.168.10.15' } },
  ];

  it.each(accepted)('accepts a create the vendor schema accepts: $name', async ({ body }) => {
    expectValid(requestValidator(CLOUD, 'POST', LIST), body);
    expect((await emu.call('POST', list, { body })).status).toBe(200);
  });
});
