import { describe, expect, it } from 'vitest';
import { CLOUD_PRODUCT, cloudObjectBody, cloudPages, cloudPlacement, placedIn, type CloudScope } from '../../../src/emulator/cloud-common.js';
import { defineCollection } from '../../../src/emulator/collection.js';
import { CoreState } from '../../../src/emulator/core-state.js';
import { bareArray, pageNumbers, unpaged } from '../../../src/emulator/paging.js';
import { CONTROL_PRODUCT, ReplyError, jsonReply, type Reply } from '../../../src/emulator/reply.js';
import type { RouteContext, ServiceRoute } from '../../../src/emulator/router.js';
import type { TaskTarget } from '../../../src/emulator/tasks.js';

// A collection of the shape the next cloud kinds have (issue 22's networks): placed, created,
// renamed and deleted by tasks. Its declaration is the whole of it; the handlers are called
// directly with a context (no server).
interface Network {
  id: string;
  name: string;
  project_id: number;
  region_id: number;
  task_id: string | null;
  creator_task_id: string | null;
  next_task_error: string | null;
}
type Slice = { networks: Map<string, Network> };

const networkTasks: TaskTarget<'network', Network, { type: string }, Slice> = {
  kind: 'network',
  find: (state, id) => state.networks.get(id),
  finish(state, network, task, ok) {
    if (ok && task.effect.type === 'delete_network') state.networks.delete(network.id);
  },
};

const networks = defineCollection<Slice, Network, CloudScope>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/networks/{project_id}/{region_id}',
  idParam: 'network_id',
  noun: 'Network',
  scope: cloudPlacement,
  store: (ctx) => ctx.state.networks,
  inScope: placedIn,
  idOf: (n) => n.id,
  mutationKind: 'network',
  tasks: { kind: 'network' },
  list: { paging: cloudPages(), render: (n) => ({ id: n.id, name: n.name }) },
  get: (n) => ({ id: n.id, name: n.name, task_id: n.task_id }),
  create: {
    build(ctx, { projectId, regionId }) {
      const body = cloudObjectBody(ctx);
      const id = `net-${ctx.state.networks.size + 1}`;
      const record: Network = { id, name: String(body.name), project_id: projectId, region_id: regionId, task_id: null, creator_task_id: null, next_task_error: null };
      return { record, task: { type: 'create_network', data: body, createdResources: { networks: [id] } } };
    },
  },
  updates: [
    {
      method: 'PATCH',
      change(ctx, n) {
        const name = cloudObjectBody(ctx).name;
        if (typeof name !== 'string' || name === n.name) return {};
        n.name = name;
        return { name };
      },
      answer: (n) => jsonReply(200, { id: n.id, name: n.name }),
    },
  ],
  delete: { task: 'delete_network' },
});

const LIST = '/cloud/v1/networks/{project_id}/{region_id}';
const ONE = `${LIST}/{network_id}`;

function world(): RouteContext<Slice>['state'] {
  const state = Object.assign(new CoreState(new Map([['network', networkTasks as TaskTarget]])), { networks: new Map<string, Network>() });
  for (const [id, projectId] of [
    ['net-a', 1],
    ['net-b', 1],
    ['net-c', 2],
  ] as const) {
    state.networks.set(id, { id, name: id, project_id: projectId, region_id: 76, task_id: null, creator_task_id: null, next_task_error: null });
  }
  return state;
}

function call<S extends object>(
  routes: ServiceRoute<S>[],
  state: RouteContext<S>['state'],
  method: string,
  pattern: string,
  params: Record<string, string>,
  o: { query?: string; body?: unknown; now?: number } = {},
): Reply {
  const route = routes.find((r) => r.method === method && r.pattern === pattern);
  if (!route) throw new Error(`no route ${method} ${pattern}`);
  let drawn = 0;
  const ctx: RouteContext<S> = {
    method,
    path: pattern,
    route: pattern,
    params: { project_id: '1', region_id: '76', ...params },
    query: new URLSearchParams(o.query ?? ''),
    body: o.body,
    requestId: 'req-1',
    now: o.now ?? 1000,
    state,
    clock: { now: () => o.now ?? 1000, advance: () => undefined },
    settings: { taskDurationMs: 500, readLagMs: 0, drawTask: (kind, id) => ({ id: `task-${kind}-${id}-${drawn++}`, error: null }) },
  };
  try {
    return route.handler(ctx);
  } catch (error) {
    if (error instanceof ReplyError) return error.reply;
    throw error;
  }
}

describe('emulator collections', () => {
  it('routes list and create on the list path, then get, update and delete on the item path, in that order (the order of a 405 Allow header)', () => {
    expect(networks.routes.map((r) => `${r.method} ${r.pattern}`)).toEqual([`GET ${LIST}`, `POST ${LIST}`, `GET ${ONE}`, `PATCH ${ONE}`, `DELETE ${ONE}`]);
  });

  it('lists the scope only, paged as declared, in the declared envelope', () => {
    const state = world();
    expect(call(networks.routes, state, 'GET', LIST, {}).json).toEqual({
      count: 2,
      results: [
        { id: 'net-a', name: 'net-a' },
        { id: 'net-b', name: 'net-b' },
      ],
    });
    expect(call(networks.routes, state, 'GET', LIST, {}, { query: 'limit=1&offset=1' }).json).toEqual({ count: 2, results: [{ id: 'net-b', name: 'net-b' }] });
  });

  it("refuses paging parameters and path parameters in the product's error shape", () => {
    const state = world();
    expect(call(networks.routes, state, 'GET', LIST, {}, { query: 'limit=0' })).toMatchObject({
      status: 400,
      json: { exception_class: 'ValidationError', message: 'limit: Input should be an integer between 1 and 1000', request_id: 'req-1' },
    });
    expect(call(networks.routes, state, 'GET', LIST, { project_id: 'x' }).json).toMatchObject({ message: 'project_id: Input should be a valid integer, got "x"' });
  });

  it("answers a record outside the path's scope, or missing, with the product's 404 naming it", () => {
    const state = world();
    expect(call(networks.routes, state, 'GET', ONE, { network_id: 'net-c' })).toMatchObject({ status: 404, json: { message: 'Network net-c not found' } });
    expect(call(networks.routes, state, 'GET', ONE, { network_id: 'nope' })).toMatchObject({ status: 404, json: { exception_class: 'NotFoundError' } });
  });

  it('a create that the vendor answers with a task inserts the record locked by its task, names the task its creator and answers the task id', () => {
    const state = world();
    const reply = call(networks.routes, state, 'POST', LIST, {}, { body: { name: 'edge' } });
    expect(reply).toEqual({ status: 200, json: { tasks: ['task-network-net-4-0'] } });
    expect(state.networks.get('net-4')).toMatchObject({ name: 'edge', task_id: 'task-network-net-4-0', creator_task_id: 'task-network-net-4-0' });
    expect(state.tasks.get('task-network-net-4-0')).toMatchObject({ task_type: 'create_network', finish_at: 1500, created_resources: { networks: ['net-4'] } });
  });

  it('a delete by task answers 409 while another task holds the lock, and removes the record when its task finishes', () => {
    const state = world();
    expect(call(networks.routes, state, 'DELETE', ONE, { network_id: 'net-a' }).json).toEqual({ tasks: ['task-network-net-a-0'] });
    expect(call(networks.routes, state, 'DELETE', ONE, { network_id: 'net-a' })).toMatchObject({
      status: 409,
      json: { message: 'Network net-a is locked by task task-network-net-a-0; wait until the task finishes' },
    });
    state.settle(1500);
    expect(state.networks.has('net-a')).toBe(false);
  });

  it('a synchronous update logs only what changed', () => {
    const state = world();
    call(networks.routes, state, 'PATCH', ONE, { network_id: 'net-a' }, { body: { name: 'net-a' } });
    call(networks.routes, state, 'PATCH', ONE, { network_id: 'net-a' }, { body: { name: 'renamed' } });
    expect(state.mutations).toEqual([{ time: 1000, kind: 'network', id: 'net-a', change: 'update', after: { name: 'renamed' }, taskId: null }]);
  });
});

/** The reply a request helper stops with. */
function refusal(read: () => unknown): Reply {
  try {
    read();
  } catch (error) {
    if (error instanceof ReplyError) return error.reply;
    throw error;
  }
  throw new Error('no refusal');
}

// Issue 21's DNS record sets: listed under the zone, created on the item path, named by two path parameters.
interface RrSet {
  zone: string;
  name: string;
  type: string;
  ttl: number;
}
const RRSET = '/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}';
const rrsets = defineCollection<{ rrsets: Map<string, RrSet> }, RrSet, string>({
  product: CONTROL_PRODUCT,
  path: '/dns/v2/zones/{zoneName}/rrsets',
  itemPath: RRSET,
  createPath: RRSET,
  noun: 'RRSet',
  scope: (ctx) => ctx.params.zoneName ?? '',
  readId: (ctx) => `${ctx.params.rrsetName}/${ctx.params.rrsetType}`,
  store: (ctx) => ctx.state.rrsets,
  key: (id, zone) => `${zone}/${id}`,
  inScope: (r, zone) => r.zone === zone,
  idOf: (r) => `${r.name}/${r.type}`,
  list: { paging: unpaged(({ items, total }) => ({ rrsets: items, total_amount: total })), render: (r) => ({ name: r.name, type: r.type, ttl: r.ttl }) },
  get: (r) => ({ name: r.name, type: r.type, ttl: r.ttl }),
  create: {
    build: (ctx, zone) => ({ record: { zone, name: ctx.params.rrsetName ?? '', type: ctx.params.rrsetType ?? '', ttl: 300 }, logged: {} }),
    answer: (r) => jsonReply(200, { name: r.name, type: r.type, ttl: r.ttl }),
  },
  delete: {},
});

describe('emulator collections of other shapes', () => {
  it('a collection created on its item path and named by two path parameters (DNS record sets) lists, gets and deletes by that name', () => {
    const state = Object.assign(new CoreState(new Map()), { rrsets: new Map<string, RrSet>() });
    const { routes } = rrsets;
    expect(routes.map((r) => `${r.method} ${r.pattern}`)).toEqual(['GET /dns/v2/zones/{zoneName}/rrsets', `POST ${RRSET}`, `GET ${RRSET}`, `DELETE ${RRSET}`]);
    const www = { zoneName: 'example.com', rrsetName: 'www', rrsetType: 'A' };
    expect(call(routes, state, 'POST', RRSET, www).json).toEqual({ name: 'www', type: 'A', ttl: 300 });
    expect(call(routes, state, 'GET', '/dns/v2/zones/{zoneName}/rrsets', { zoneName: 'example.com' }).json).toEqual({
      rrsets: [{ name: 'www', type: 'A', ttl: 300 }],
      total_amount: 1,
    });
    expect(call(routes, state, 'GET', '/dns/v2/zones/{zoneName}/rrsets', { zoneName: 'other.com' }).json).toEqual({ rrsets: [], total_amount: 0 });
    expect(call(routes, state, 'GET', RRSET, { ...www, rrsetType: 'AAAA' })).toEqual({ status: 404, json: { error: 'RRSet www/AAAA not found' } });
    expect(call(routes, state, 'DELETE', RRSET, www).status).toBe(204);
    expect(call(routes, state, 'GET', RRSET, www).status).toBe(404);
  });
});

describe('emulator paging styles', () => {
  const ctxWith = (query: string): RouteContext => ({ query: new URLSearchParams(query), requestId: 'r' }) as RouteContext;
  const videos = pageNumbers({ size: { param: 'per_page', default: 25, max: 100 }, answer: bareArray });

  it('numbered pages read page and a page size, capping the size at its largest', () => {
    expect(videos.read(ctxWith('page=3&per_page=10'), CONTROL_PRODUCT)).toEqual({ offset: 20, limit: 10, page: 3 });
    expect(videos.read(ctxWith('per_page=500'), CONTROL_PRODUCT)).toEqual({ offset: 0, limit: 100, page: 1 });
  });

  it('refuses a page below 1 with the status the endpoint declares', () => {
    const strict = pageNumbers({ size: 10, status: 422, answer: bareArray });
    expect(refusal(() => strict.read(ctxWith('page=0'), CONTROL_PRODUCT))).toEqual({ status: 422, json: { error: 'invalid page: "0"' } });
  });

  it('an empty parameter is absent only for products that say so (Django REST framework)', () => {
    const paging = cloudPages();
    expect(paging.read(ctxWith('limit='), { ...CONTROL_PRODUCT, blankQueryIsAbsent: true })).toEqual({ offset: 0, limit: 1000 });
    expect(refusal(() => paging.read(ctxWith('limit='), CONTROL_PRODUCT))).toMatchObject({ status: 400 });
  });
});
