import { UUID_PATTERN, parseIntStrict } from './format.js';
import type { PagingStyle } from './paging.js';
import { emptyReply, fail, jsonReply, type ApiProduct, type Reply } from './reply.js';
import type { RouteContext, ServiceRoute } from './router.js';
import { startTask, type TaskEffect, type TaskRecord } from './tasks.js';

/** How a collection's id reads from the path: any text, a UUID, an integer, or a positive integer; refused in the product's shape. */
export type IdSyntax = 'text' | 'uuid' | 'integer' | 'positive-integer';

type IdOf<S extends IdSyntax> = S extends 'text' | 'uuid' ? string : number;

/** Where a collection keeps its records: a map by key, or an array (a parent's list, fixture order). */
export type RecordStore<Key, Rec> = Map<Key, Rec> | Rec[];

/** A task a write starts on a record (cloud): its type, what it does when it finishes, the body it was started with. */
export interface TaskStart {
  type: string;
  /** Default `{type}`. */
  effect?: TaskEffect;
  data: unknown;
  /** What a create task lists under created_resources once FINISHED. */
  createdResources?: Record<string, string[]>;
}

/** What a create builds: the record to insert, and either its mutation-log entry (a synchronous create) or the task that creates it. */
export type Created<Rec> = { record: Rec; logged: Record<string, unknown>; task?: undefined } | { record: Rec; task: TaskStart; logged?: undefined };

/** An update of an existing record, on the item path or its own (`path`, e.g. a v2 route). */
export type UpdateSpec<State extends object, Rec, Scope> = {
  /** PATCH or PUT; POST for an action on the item (`{item}/changeflavor`). */
  method: 'PATCH' | 'PUT' | 'POST';
  path?: string;
} & (
  | {
      /**
       * Applies the body to the record (checks first, in the vendor's order) and returns what
       * changed; the change is logged as `update` unless empty. `checkLock()` answers 409 while a
       * task holds the record; call it where the vendor checks the lock.
       */
      change(ctx: RouteContext<State>, record: Rec, scope: Scope, checkLock: () => void): Record<string, unknown>;
      /** The answer after the change. */
      answer(record: Rec, ctx: RouteContext<State>): Reply;
    }
  | {
      /** Checks the body and returns the task to start; undefined when nothing would change (answered `{"tasks": []}`). */
      task(ctx: RouteContext<State>, record: Rec, scope: Scope, checkLock: () => void): TaskStart | undefined;
    }
);

/**
 * One collection of a platform service (floating IPs, FastEdge apps, a video's subtitles, ...)
 * as the vendor serves it: a list path, an item path (`{path}/{id}`), the item's id syntax, where
 * its records live and which of them a path's scope holds, and the operations the vendor offers
 * on it. `defineCollection` turns it into routes that list (paged as the vendor pages that
 * endpoint), get, create, update and delete with the product's error shapes and, for cloud
 * resources, tasks. What is truly the service's own (body checks, filters, rendering) is
 * declared here as functions; everything else comes from one place.
 */
export interface CollectionSpec<State extends object, Rec, Key, Scope, Query, Syntax extends IdSyntax> {
  /** The API family whose errors it answers in. */
  product: ApiProduct;
  /** The list path, e.g. /cloud/v1/floatingips/{project_id}/{region_id}. */
  path: string;
  /** The id's parameter name in the item path `{path}/{idParam}` (default `id`). */
  idParam?: string;
  /** The item path when it is not `{path}/{idParam}` (DNS record sets: `/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}`). */
  itemPath?: string;
  /** Where POST creates when not on the list path (cloud v2 creates beside a v1 list; DNS record sets on the item path). */
  createPath?: string;
  /** How the id reads (default text). */
  idSyntax?: Syntax;
  /** Reads an id made of several path parameters (a record set's name and type), instead of `idParam` in `idSyntax`. */
  readId?(ctx: RouteContext<State>, scope: Scope): IdOf<Syntax>;
  /** What the product's 404 names: `${noun} ${id}` unless `notFoundName` says otherwise. */
  noun: string;
  notFoundName?(id: IdOf<Syntax>, scope: Scope): string;
  /** Reads (and checks) the path's parameters before the id: placement, parent resource. */
  scope?(ctx: RouteContext<State>): Scope;
  /** The records a scope draws from (the whole map of the service's slice, or a parent's array). */
  store(ctx: RouteContext<State>, scope: Scope): RecordStore<Key, Rec>;
  /** Whether a record of the store belongs to the scope (default: every record does). */
  inScope?(record: Rec, scope: Scope): boolean;
  /** The id of a record (logged in the mutation log; the key of array stores). */
  idOf(record: Rec): string | number;
  /** The map key of an id (default the id itself), e.g. a cluster's `project/region/name`. */
  key?(id: IdOf<Syntax>, scope: Scope): Key;
  /** The kind it records its changes under in the mutation log. */
  mutationKind?: string;
  /** For cloud resources: the task target kind and the resource id its tasks name (default idOf). */
  tasks?: { kind: string; resourceId?(record: Rec): string };
  list?: {
    paging: PagingStyle<Scope>;
    /** Reads the filters (in the vendor's order of checks); by default after the page parameters. */
    query?(ctx: RouteContext<State>, scope: Scope): Query;
    queryFirst?: boolean;
    where?(record: Rec, query: Query, ctx: RouteContext<State>): boolean;
    order?(a: Rec, b: Rec, query: Query): number;
    render(record: Rec, ctx: RouteContext<State>, query: Query): unknown;
  };
  /** GET one: the item's body (200). */
  get?(record: Rec, ctx: RouteContext<State>): unknown;
  create?: {
    build(ctx: RouteContext<State>, scope: Scope): Created<Rec>;
    /** The answer of a synchronous create (a task create answers `{"tasks": [id]}`). */
    answer?(record: Rec, ctx: RouteContext<State>): Reply;
    /** Puts a new record in its store (default: the map by key, or the end of the array). */
    insert?(ctx: RouteContext<State>, record: Rec, scope: Scope): void;
  };
  updates?: readonly UpdateSpec<State, Rec, Scope>[];
  /**
   * DELETE: remove at once and answer 204 (or `answer`: DNS answers 200 `{}`), or start a task (cloud) and answer it: a task type, or
   * the task a request's options make (an instance's `volumes`, `delete_floatings`). `check`
   * refuses a delete the vendor refuses (a network that still has subnets), naming what uses the record.
   */
  delete?: (
    | { remove?(ctx: RouteContext<State>, record: Rec, scope: Scope): void; answer?(record: Rec, ctx: RouteContext<State>): Reply }
    | { task: string | ((ctx: RouteContext<State>, record: Rec, scope: Scope) => TaskStart) }
  ) & {
    check?(ctx: RouteContext<State>, record: Rec, scope: Scope): void;
  };
}

/** A declared collection: its routes, and what its service's other routes use of it. */
export interface Collection<State extends object, Rec, Scope> {
  readonly routes: ServiceRoute<State>[];
  /** The record a request's path names (scope, then id); the product's 400 or 404 otherwise. */
  find(ctx: RouteContext<State>): Rec;
  /** The same with its scope. */
  locate(ctx: RouteContext<State>): { record: Rec; scope: Scope };
  /** 409 while a task holds the record's lock (cloud). */
  assertUnlocked(ctx: RouteContext<State>, record: Rec & { task_id: string | null }): void;
  /** Starts a task on a record: its id and injected failure drawn from the faults' seed, its duration from the settings. */
  startTask(ctx: RouteContext<State>, record: Rec, start: TaskStart): TaskRecord;
}

type Placed = { project_id: number; region_id: number };

/** Answers `{"tasks": [ids]}`, as every cloud write that starts tasks does. */
export function tasksReply(...tasks: TaskRecord[]): Reply {
  return jsonReply(200, { tasks: tasks.map((task) => task.id) });
}

/** Declares a collection (see CollectionSpec) and builds its routes. */
export function defineCollection<State extends object, Rec, Scope = undefined, Query = undefined, Syntax extends IdSyntax = 'text', Key = IdOf<Syntax>>(
  spec: CollectionSpec<State, Rec, Key, Scope, Query, Syntax>,
): Collection<State, Rec, Scope> {
  return new DeclaredCollection(spec);
}

/** A collection built from its spec: the spec is its state, each operation a method over it. */
class DeclaredCollection<State extends object, Rec, Key, Scope, Query, Syntax extends IdSyntax> implements Collection<State, Rec, Scope> {
  readonly routes: ServiceRoute<State>[];

  constructor(private readonly spec: CollectionSpec<State, Rec, Key, Scope, Query, Syntax>) {
    const itemPath = spec.itemPath ?? `${spec.path}/{${spec.idParam ?? 'id'}}`;
    // The order of the routes is the order of a 405's Allow header: GET and POST on the list, then GET, the updates and DELETE on the item.
    const { list, create, get, updates = [], delete: del } = spec;
    const routes: ServiceRoute<State>[] = [];
    if (list) routes.push({ method: 'GET', pattern: spec.path, handler: (ctx) => this.listRecords(list, ctx) });
    if (create) routes.push({ method: 'POST', pattern: spec.createPath ?? spec.path, handler: (ctx) => this.createRecord(create, ctx) });
    if (get) routes.push({ method: 'GET', pattern: itemPath, handler: (ctx) => jsonReply(200, get(this.locate(ctx).record, ctx)) });
    for (const update of updates) routes.push({ method: update.method, pattern: update.path ?? itemPath, handler: (ctx) => this.updateRecord(update, ctx) });
    if (del) routes.push({ method: 'DELETE', pattern: itemPath, handler: (ctx) => this.deleteRecord(del, ctx) });
    this.routes = routes;
  }

  readonly find = (ctx: RouteContext<State>): Rec => this.locate(ctx).record;

  readonly locate = (ctx: RouteContext<State>): { record: Rec; scope: Scope } => {
    const { spec } = this;
    const scope = this.readScope(ctx);
    const id = this.readId(ctx, scope);
    const store = spec.store(ctx, scope);
    const record = Array.isArray(store) ? store.find((r) => spec.idOf(r) === id) : store.get(this.keyOfId(id, scope));
    if (record === undefined || !this.belongs(record, scope)) fail(spec.product.notFound(spec.notFoundName?.(id, scope) ?? `${spec.noun} ${id}`, ctx.requestId));
    return { record, scope };
  };

  readonly assertUnlocked = (ctx: RouteContext<State>, record: Rec & { task_id: string | null }): void => {
    if (record.task_id)
      fail(this.spec.product.error(409, `${this.spec.noun} ${this.spec.idOf(record)} is locked by task ${record.task_id}; wait until the task finishes`, ctx.requestId));
  };

  readonly startTask = (ctx: RouteContext<State>, record: Rec, start: TaskStart): TaskRecord => {
    const tasks = this.spec.tasks;
    if (!tasks) throw new Error(`${this.spec.noun}: the collection declares no tasks`);
    const resourceId = tasks.resourceId?.(record) ?? String(this.spec.idOf(record));
    // Every collection that declares tasks is a cloud one: its records carry their placement.
    const placed = record as Placed;
    const draw = ctx.settings.drawTask(tasks.kind, resourceId, (id) => ctx.state.tasks.has(id));
    const input = {
      taskType: start.type,
      kind: tasks.kind,
      resourceId,
      projectId: placed.project_id,
      regionId: placed.region_id,
      effect: start.effect ?? { type: start.type },
      data: start.data,
      requestId: ctx.requestId,
      ...(start.createdResources ? { createdResources: start.createdResources } : {}),
    };
    return startTask(ctx.state, input, ctx.now, ctx.settings.taskDurationMs, draw);
  };

  private readScope(ctx: RouteContext<State>): Scope {
    // A collection without a scope reader has Scope = undefined (its default).
    return this.spec.scope ? this.spec.scope(ctx) : (undefined as Scope);
  }

  private belongs(record: Rec, scope: Scope): boolean {
    return this.spec.inScope?.(record, scope) ?? true;
  }

  private readId(ctx: RouteContext<State>, scope: Scope): IdOf<Syntax> {
    const { spec } = this;
    if (spec.readId) return spec.readId(ctx, scope);
    const name = spec.idParam ?? 'id';
    const text = ctx.params[name] ?? '';
    const syntax: IdSyntax = spec.idSyntax ?? 'text';
    if (syntax === 'text') return text as IdOf<Syntax>;
    const refuse = (expected: { kind: 'uuid' } | { kind: 'integer'; min?: number }): never =>
      fail(spec.product.invalidParam({ name, text, in: 'path', expected, status: 400 }, ctx.requestId));
    if (syntax === 'uuid') return (UUID_PATTERN.test(text) ? text : refuse({ kind: 'uuid' })) as IdOf<Syntax>;
    const value = parseIntStrict(text);
    if (value === undefined || (syntax === 'positive-integer' && value < 1)) refuse(syntax === 'positive-integer' ? { kind: 'integer', min: 1 } : { kind: 'integer' });
    return value as IdOf<Syntax>;
  }

  /** The map key of an id: `key` when the spec declares one, else the id itself. */
  private keyOfId(id: IdOf<Syntax>, scope: Scope): Key {
    // Without `key`, Key is IdOf<Syntax> (defineCollection's default), so the id is the key.
    return this.spec.key ? this.spec.key(id, scope) : (id as unknown as Key);
  }

  private keyOf(record: Rec, scope: Scope): Key {
    return this.keyOfId(this.spec.idOf(record) as IdOf<Syntax>, scope);
  }

  private log(ctx: RouteContext<State>, record: Rec, change: string, after?: Record<string, unknown>): void {
    if (this.spec.mutationKind !== undefined) ctx.state.recordMutation(ctx.now, this.spec.mutationKind, this.spec.idOf(record), change, after);
  }

  /** GET the list: scope, page and filters (in the vendor's order), the matching records in order, the page in its envelope. */
  private listRecords(list: NonNullable<CollectionSpec<State, Rec, Key, Scope, Query, Syntax>['list']>, ctx: RouteContext<State>): Reply {
    const scope = this.readScope(ctx);
    // A list without a query reader has Query = undefined (its default).
    const readQuery = (): Query => (list.query ? list.query(ctx, scope) : (undefined as Query));
    const early = list.queryFirst === true ? { query: readQuery() } : undefined;
    const window = list.paging.read(ctx, this.spec.product);
    const query = early ? early.query : readQuery();
    const matching: Rec[] = [];
    for (const record of this.spec.store(ctx, scope).values()) if (this.belongs(record, scope) && (list.where?.(record, query, ctx) ?? true)) matching.push(record);
    const { order } = list;
    if (order) matching.sort((a, b) => order(a, b, query));
    const end = window.limit === undefined ? undefined : window.offset + window.limit;
    const items = matching.slice(window.offset, end).map((record) => list.render(record, ctx, query));
    return jsonReply(200, list.paging.answer({ items, total: matching.length, window, scope }));
  }

  /** POST: builds the record, puts it in its store, then logs it and answers, or starts its create task (the record's creator) and answers the task. */
  private createRecord(create: NonNullable<CollectionSpec<State, Rec, Key, Scope, Query, Syntax>['create']>, ctx: RouteContext<State>): Reply {
    const scope = this.readScope(ctx);
    const created = create.build(ctx, scope);
    const { record } = created;
    if (create.insert) create.insert(ctx, record, scope);
    else {
      const store = this.spec.store(ctx, scope);
      if (Array.isArray(store)) store.push(record);
      else store.set(this.keyOf(record, scope), record);
    }
    if (created.task) {
      const task = this.startTask(ctx, record, created.task);
      if (typeof record === 'object' && record !== null && 'creator_task_id' in record) record.creator_task_id = task.id;
      return tasksReply(task);
    }
    this.log(ctx, record, 'create', created.logged);
    return create.answer ? create.answer(record, ctx) : jsonReply(200, this.spec.get?.(record, ctx));
  }

  /** PATCH, PUT or an action: a synchronous change logged when something changed, or a task (none when nothing would change). */
  private updateRecord(update: UpdateSpec<State, Rec, Scope>, ctx: RouteContext<State>): Reply {
    const { record, scope } = this.locate(ctx);
    const checkLock = (): void => this.assertUnlocked(ctx, record as Rec & { task_id: string | null });
    if ('task' in update) {
      const start = update.task(ctx, record, scope, checkLock);
      return start ? tasksReply(this.startTask(ctx, record, start)) : tasksReply();
    }
    const changed = update.change(ctx, record, scope, checkLock);
    if (Object.keys(changed).length > 0) this.log(ctx, record, 'update', changed);
    return update.answer(record, ctx);
  }

  /** DELETE: a task on the unlocked record, or the record removed from its store, logged, 204 (or its own answer). */
  private deleteRecord(del: NonNullable<CollectionSpec<State, Rec, Key, Scope, Query, Syntax>['delete']>, ctx: RouteContext<State>): Reply {
    const { record, scope } = this.locate(ctx);
    if ('task' in del) {
      del.check?.(ctx, record, scope);
      const start = typeof del.task === 'string' ? { type: del.task, data: null } : del.task(ctx, record, scope);
      this.assertUnlocked(ctx, record as Rec & { task_id: string | null });
      return tasksReply(this.startTask(ctx, record, start));
    }
    del.check?.(ctx, record, scope);
    if (del.remove) del.remove(ctx, record, scope);
    else {
      const store = this.spec.store(ctx, scope);
      if (Array.isArray(store)) store.splice(store.indexOf(record), 1);
      else store.delete(this.keyOf(record, scope));
    }
    this.log(ctx, record, 'delete');
    return del.answer ? del.answer(record, ctx) : emptyReply(204);
  }
}
