import { z } from 'zod';
import { NotFoundError } from '../api/errors.js';
import { isUnknownOutcome } from '../api/retry.js';
import { taskIdsSchema, type TaskScope } from '../api/tasks.js';
import { PlanPayloadError, must } from '../errors.js';
import { setAtPath } from '../model/references.js';
import type { ChangeFields, ResourceChange } from '../plan/types.js';
import type { ApplyResult, FinishedTask, Observation, ProviderContext, ResourceProvider } from './provider.js';
import { RESOURCE_KINDS, type ResourceAttributes, type ResourceType } from './registry.js';
import { requirePayload, startTasks, type Recovery } from './shared.js';

/**
 * The create → (task) → read-back, update, delete and replace sequence every resource kind
 * runs, declared once. A kind fills in a {@link Lifecycle}: for each verb it supports, the
 * request that carries it out (method, path and body, built from the change's payload and the
 * platform id it acts on) and, when the request starts platform tasks, how the resource is
 * re-read after a send whose outcome is unknown. `defineLifecycle` turns that into the
 * provider's `apply` (with its `verbs`, `payloadSchema`, `taskType` and
 * `taskTimeoutMs`); the policies are the same for every kind:
 *
 * - a synchronous create (POST) is sent once: a lost answer is 'unacknowledged', and the
 *   executor's re-read by the block's identity decides (sendCreate);
 * - a synchronous update (PATCH) sets values and is retried as idempotent; a synchronous
 *   delete too, and a 404 means it is already gone (success);
 * - a request that starts tasks is retried only when it provably never reached the platform;
 *   an unknown outcome re-reads the resource (`reread`), waits on a task holding its lock and
 *   judges it `done`, never blindly sending again unless the step is `resend`able (startTasks);
 * - a replace is two steps the executor runs apart, as Terraform does (the destroys of what
 *   depends on the resource come between): a delete, then a create (the new resource carries the
 *   same identity); `beforeReplace` checks the create's payload before the delete, so a bad plan
 *   destroys nothing;
 * - an action the kind does not declare is refused with PlanPayloadError before anything is sent.
 *
 * The executor waits for a lock before, and confirms by re-reading after (see executor.ts).
 */

/** One request of a change, as a kind builds it. */
export interface ChangeRequest {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

/**
 * How a step whose request answers `{"tasks": [...]}` is waited on and recovered: after a send
 * with an unknown outcome, `reread` reads the resource (null: gone, or not found by its
 * identity), a lock on it (Lifecycle.tasks.lock) is waited on, and `done` says whether the
 * resource already shows the step's result; otherwise the step did not start.
 */
export interface TaskStep<In, Item> {
  /** The platform's task type the request starts (e.g. `resize_vm`). */
  type: string;
  /** Send again when a re-read shows nothing started (an idempotent request: the tags merge patch). */
  resend?: boolean;
  reread(ctx: ProviderContext, input: In): Promise<Item | null>;
  done(item: Item | null, input: In): boolean;
}

/** A task-starting request's recovery, bound to its input (see TaskStep). */
export interface TaskCheck<Item> {
  resend?: boolean;
  reread(): Promise<Item | null>;
  done(item: Item | null): boolean;
}

/** What a create's request is built from. */
export interface CreateInput<T extends ResourceType, P> {
  change: ResourceChange<T>;
  desired: ResourceAttributes[T];
  payload: P;
}

/** What an update's request is built from: the create's, and the platform id it acts on. */
export interface UpdateInput<T extends ResourceType, P> extends CreateInput<T, P> {
  id: string | number;
}

/** What a delete's request is built from. */
export interface DeleteInput<T extends ResourceType> {
  change: ResourceChange<T>;
  desired: ResourceAttributes[T];
  id: string | number;
}

/**
 * For a request that starts no task and whose answer is the resource as the platform stored it
 * (the DNS API answers a record set's POST and PUT with the record set, and reads it from the
 * same store): the answer's shape and its projection, the same a read of the resource makes. The
 * executor then takes the answer as its confirming read (ApplyResult `observed`); an answer that
 * does not fit the shape is no failure, only confirmed by a read instead.
 */
export interface StepAnswer<In, Item> {
  schema: z.ZodType<Item>;
  observe(input: In, item: Item): Observation;
}

/** A step that is one request: its payload (checked before anything is sent), the request, its tasks if it starts any. */
interface RequestStep<In, P, Item> {
  payload: z.ZodType<P>;
  request(input: In): ChangeRequest;
  tasks?: TaskStep<In, Item>;
  /** See StepAnswer: for a step that starts no task. */
  answer?: StepAnswer<In, Item>;
}

/** A create, and the ids its finished tasks list as created (`created_resources.<key>`), shown as progress. */
export type CreateStep<T extends ResourceType, P, Item> = RequestStep<CreateInput<T, P>, P, Item> & {
  created?: { key: string; noun: string };
};

/**
 * An update: one request, or (`run`) a sequence of the kind's own (a Kubernetes upgrade, one
 * minor version a step) built from sendRequest.
 */
export type UpdateStep<T extends ResourceType, P, Item> =
  | RequestStep<UpdateInput<T, P>, P, Item>
  | {
      payload: z.ZodType<P>;
      /** The platform's task type of the requests `run` sends. */
      taskType?: string;
      run(ctx: ProviderContext, input: UpdateInput<T, P>, sendTasks: (request: ChangeRequest, check: TaskCheck<Item>) => Promise<ApplyResult>): Promise<ApplyResult>;
    };

/** A delete: its request and its tasks if it starts any. */
export interface DeleteStep<T extends ResourceType, Item> {
  request(input: DeleteInput<T>): ChangeRequest;
  tasks?: TaskStep<DeleteInput<T>, Item>;
  /**
   * For a synchronous delete whose answer (2xx, or 404: already gone) means the resource is gone
   * from the store the reads read (DNS): the executor confirms with that, not with a read.
   */
  answersGone?: true;
}

/** What a kind declares of its changes (see the module comment). */
export interface Lifecycle<T extends ResourceType, Item, C, U> {
  /** The progress verbs of an update (e.g. ["Resizing", "Resized"]); a delete is "Destroying", "Destroyed". */
  updateVerbs: [string, string];
  /** For kinds whose requests start tasks: where they run, the lock a resource shows, how long a task may take. */
  tasks?: {
    scope(desired: ResourceAttributes[T]): TaskScope;
    lock(item: Item): string | null | undefined;
    /** How long a task of this kind may run before edgeform stops waiting; default the poller's (20 minutes). */
    timeoutMs?: number;
  };
  create?: CreateStep<T, C, Item>;
  update?: UpdateStep<T, U, Item>;
  delete?: DeleteStep<T, Item>;
  /** Replace (a field that cannot change in place differs): a delete, then a create, as two steps of the executor. Needs both. */
  replace?: true;
}

/** The task scope of a cloud resource: its project and region (Lifecycle.tasks.scope). */
export const cloudTaskScope = (desired: { project_id: number; region_id: number }): TaskScope => ({ projectId: desired.project_id, regionId: desired.region_id });

/** What defineLifecycle gives the provider. */
export type LifecycleProvider<T extends ResourceType> = Pick<
  ResourceProvider<T>,
  'verbs' | 'apply' | 'beforeReplace' | 'payloadSchema' | 'taskType' | 'taskTimeoutMs' | 'startsTasks'
>;

/** The provider's apply and the fields derived from the same declaration (see the module comment). */
export function defineLifecycle<T extends ResourceType, Item = never, C = never, U = never>(type: T, lifecycle: Lifecycle<T, Item, C, U>): LifecycleProvider<T> {
  const { create, update, delete: remove } = lifecycle;
  const verbs = [create && 'created', update && 'updated', remove && 'deleted', lifecycle.replace && 'replaced'].filter((v): v is string => typeof v === 'string');
  const updateType = update && ('run' in update ? update.taskType : update.tasks?.type);
  const runner = lifecycleRunner(lifecycle);
  // Which actions start tasks: those whose step waits on them (an update run of the kind's own, when it names their type).
  const tasked = {
    create: create?.tasks !== undefined,
    update: update !== undefined && ('run' in update ? update.taskType !== undefined : update.tasks !== undefined),
    delete: remove?.tasks !== undefined,
  };
  return {
    startsTasks: (action) => (action === 'replace' ? tasked.create || tasked.delete : action === 'create' || action === 'update' || action === 'delete' ? tasked[action] : false),
    verbs: { update: lifecycle.updateVerbs, delete: ['Destroying', 'Destroyed'] },
    ...(update ? { payloadSchema: update.payload } : {}),
    ...(updateType ? { taskType: updateType } : {}),
    ...(lifecycle.tasks?.timeoutMs === undefined ? {} : { taskTimeoutMs: lifecycle.tasks.timeoutMs }),
    async apply(ctx, change) {
      switch (change.action) {
        case 'create':
          if (create) return runner.create(ctx, change, create);
          break;
        case 'update':
          if (update) return runner.update(ctx, change, update);
          break;
        case 'delete':
          if (remove) return runner.delete(ctx, change, remove);
          break;
        case 'replace':
          // The executor runs a replace as its two steps (a delete, then a create), never as one.
          if (lifecycle.replace && create && remove) throw new PlanPayloadError(change, 'a replace is applied as two steps, a delete and then a create');
          break;
        default:
          break;
      }
      throw new PlanPayloadError(change, `a ${type} can be ${listOf(verbs)}, the change says ${change.action}`);
    },
    ...(lifecycle.replace && create && remove
      ? {
          async beforeReplace(_ctx, change) {
            // The create's payload is checked before the delete: a bad plan destroys nothing. One
            // holding values known only after apply is checked when its create is sent.
            if (change.references === undefined) requirePayload(change, create.payload);
          },
        }
      : {}),
  };
}

/** The steps of one kind's lifecycle, run. */
function lifecycleRunner<T extends ResourceType, Item, C, U>(lifecycle: Lifecycle<T, Item, C, U>) {
  const tasks = lifecycle.tasks;
  /** Sends a task-starting request; its unknown outcome is settled by re-reading (see TaskStep). */
  const sendTasks = (ctx: ProviderContext, desired: ResourceAttributes[T], request: ChangeRequest, check: TaskCheck<Item>): Promise<ApplyResult> => {
    if (!tasks) throw new Error("a task-starting request needs the lifecycle's tasks");
    return sendTaskRequest(ctx, request, {
      resend: check.resend === true,
      wait: { scope: tasks.scope(desired), ...(tasks.timeoutMs === undefined ? {} : { timeoutMs: tasks.timeoutMs }) },
      async recover() {
        const item = await check.reread();
        const lock = item === null ? null : tasks.lock(item);
        if (lock) return { kind: 'running', taskId: lock };
        return check.done(item) ? { kind: 'done' } : { kind: 'not-started' };
      },
    });
  };
  /** A step's TaskStep bound to its input. */
  const send = <In extends { desired: ResourceAttributes[T] }>(ctx: ProviderContext, request: ChangeRequest, step: TaskStep<In, Item>, input: In): Promise<ApplyResult> =>
    sendTasks(ctx, input.desired, request, { ...(step.resend ? { resend: true } : {}), reread: () => step.reread(ctx, input), done: (item) => step.done(item, input) });
  return {
    async create(ctx: ProviderContext, change: ResourceChange<T>, step: CreateStep<T, C, Item>): Promise<ApplyResult> {
      const planned = requirePayload(change, step.payload);
      const input: CreateInput<T, C> = { change, desired: change.desired, payload: withSensitiveValues(ctx, change, planned) };
      const request = step.request(input);
      if (!step.tasks) return sendCreate(ctx, request, step.answer && ((item: Item) => must(step.answer, 'step.answer').observe(input, item)), step.answer?.schema);
      const finished: FinishedTask[] = [];
      const collecting: ProviderContext = {
        ...ctx,
        async waitForTasks(ids, options) {
          const done = await ctx.waitForTasks(ids, options);
          finished.push(...done);
          return done;
        },
      };
      const result = await send(collecting, request, step.tasks, input);
      if (step.created) {
        const ids = createdIds(finished, step.created.key);
        if (ids.length > 0) ctx.progress(`created ${step.created.noun} ${ids.join(', ')}`);
      }
      return result;
    },
    async update(ctx: ProviderContext, change: ResourceChange<T>, step: UpdateStep<T, U, Item>): Promise<ApplyResult> {
      const payload = withSensitiveValues(ctx, change, requirePayload(change, step.payload));
      const input: UpdateInput<T, U> = { change, desired: change.desired, payload, id: targetId(change, RESOURCE_KINDS[change.type].idField) };
      if ('run' in step) return step.run(ctx, input, (request, check) => sendTasks(ctx, change.desired, request, check));
      const request = step.request(input);
      if (step.tasks) return send(ctx, request, step.tasks, input);
      // Setting fields to values: repeating the request is harmless.
      const answer = await ctx.api.request({ ...request, retry: 'idempotent', signal: ctx.signal });
      return step.answer ? answered(answer.body, step.answer.schema, (item) => must(step.answer, 'step.answer').observe(input, item)) : undefined;
    },
    async delete(ctx: ProviderContext, change: ResourceChange<T>, step: DeleteStep<T, Item>): Promise<ApplyResult> {
      const input: DeleteInput<T> = { change, desired: change.desired, id: targetId(change, RESOURCE_KINDS[change.type].idField) };
      const request = step.request(input);
      if (step.tasks) return send(ctx, request, step.tasks, input);
      try {
        await ctx.api.request({ ...request, retry: 'idempotent', signal: ctx.signal });
      } catch (error) {
        // Someone already deleted it: that is success.
        if (!(error instanceof NotFoundError)) throw error;
      }
      return step.answersGone ? { observed: { exists: false } } : undefined;
    },
  };
}

/**
 * The payload with each sensitive value (change.sensitive) read from the environment into its
 * place, which holds the `${env:NAME}` reference: done right before the request is built, so the
 * value is only ever in the request sent (the API client redacts it from what comes back). The
 * reference must be where the plan says, and the variable set (the stack's loader already
 * refused an unset one): otherwise PlanPayloadError, before anything is sent.
 */
export function withSensitiveValues<P>(ctx: ProviderContext, change: Pick<ChangeFields, 'address' | 'action' | 'sensitive'>, payload: P): P {
  let out: unknown = payload;
  for (const { path, env } of change.sensitive ?? []) {
    const at = path.reduce<unknown>((node, key) => (node as Record<string | number, unknown> | undefined)?.[key], out);
    if (at !== `\${env:${env}}`) throw new PlanPayloadError(change, `payload.${path.join('.')} does not hold the reference \${env:${env}}`);
    const value = ctx.sensitive?.(env);
    if (value === undefined) throw new PlanPayloadError(change, `the environment variable ${env} is not set, and its value is sent (a sensitive value)`);
    out = setAtPath(out, path, value);
  }
  return out as P;
}

/**
 * Sends a request that starts tasks and waits on them (see startTasks): retried by the client
 * only when it never reached the platform; a DELETE answered 404 started nothing (already gone);
 * an unknown outcome is settled by `recover`.
 */
function sendTaskRequest(
  ctx: ProviderContext,
  request: ChangeRequest,
  options: { resend?: boolean; wait: { scope?: TaskScope; timeoutMs?: number }; recover: () => Promise<Recovery> },
): Promise<ApplyResult> {
  return startTasks(
    ctx,
    async () => {
      try {
        return (await ctx.api.request({ ...request, schema: taskIdsSchema, retry: 'never-reached-only', signal: ctx.signal })).body;
      } catch (error) {
        if (request.method === 'DELETE' && error instanceof NotFoundError) return { tasks: [] };
        throw error;
      }
    },
    options.recover,
    { resendIfNotStarted: options.resend === true, ...options.wait },
  );
}

/**
 * Sends a create (a POST that answers synchronously) once, never again: a POST is not safe to
 * repeat, since the platform may have made the resource before its answer was lost. Such an
 * unknown outcome resolves with 'unacknowledged', so the executor's re-read by the block's
 * identity tells whether the resource exists now; any other failure is thrown. With `observe`,
 * the answer is the created resource (StepAnswer).
 */
async function sendCreate<Item>(ctx: ProviderContext, request: ChangeRequest, observe?: (item: Item) => Observation, schema?: z.ZodType<Item>): Promise<ApplyResult> {
  let body: unknown;
  try {
    body = (await ctx.api.request({ ...request, signal: ctx.signal })).body;
  } catch (error) {
    if (isUnknownOutcome(error) && !ctx.signal.aborted) return 'unacknowledged';
    throw error;
  }
  return observe && schema ? answered(body, schema, observe) : undefined;
}

/**
 * An acknowledged write's answer as the resource it stored (see StepAnswer), or nothing (the
 * executor's read confirms) when the answer does not fit its shape: the change was made either way.
 */
function answered<Item>(body: unknown, schema: z.ZodType<Item>, observe: (item: Item) => Observation): ApplyResult {
  const parsed = schema.safeParse(body);
  return parsed.success ? { observed: observe(parsed.data) } : undefined;
}

/** What edgeform reads of a finished task that created resources: the ids it lists under `created_resources` (CreatedResources). */
const createdResources = z.looseObject({ created_resources: z.record(z.string(), z.unknown()).nullish() });

/** The ids finished tasks list under `created_resources[key]`; anything else there is not edgeform's. */
function createdIds(finished: readonly FinishedTask[], key: string): string[] {
  return finished.flatMap((task) => {
    const listed = createdResources.safeParse(task).data?.created_resources?.[key];
    const ids = z.array(z.string()).safeParse(listed);
    return ids.success ? ids.data : [];
  });
}

/** The platform id a change acts on: the block's own, or the one its identity found (in `before`). */
function targetId<T extends ResourceType>(change: ResourceChange<T>, idField: string): string | number {
  const id = (change.desired as Record<string, unknown>)[idField] ?? change.before?.[idField];
  if (typeof id === 'number' || (typeof id === 'string' && id !== '')) return id;
  throw new PlanPayloadError(change, `the change names no ${idField} (neither the block nor what its identity found)`);
}

/** `a`, `a or b`, `a, b or c`. */
function listOf(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? 'nothing') : `${words.slice(0, -1).join(', ')} or ${must(words.at(-1), 'words.at(-1)')}`;
}
