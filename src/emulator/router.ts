import type { EmulatorClock } from './clock.js';
import type { CoreState } from './core-state.js';
import type { TaskDraw } from './faults.js';
import type { ApiProduct, Reply } from './reply.js';

/** Settings a handler needs besides the state: how long tasks take, how long reads lag, what faults say of a new task. */
export interface RouteSettings {
  taskDurationMs: number;
  readLagMs: number;
  /** The id and injected error of the next task on a resource (EmulatorFaults.drawTask). */
  drawTask(kind: string, resourceId: string, taken: (id: string) => boolean): TaskDraw;
}

/**
 * Everything a route handler sees about one request. `State` is what the handler's service
 * needs of the state besides the shared core: its own slice (and those of services it reads).
 */
export interface RouteContext<State extends object = object> {
  method: string;
  /** Request path without the query string. */
  path: string;
  /** The matched route pattern, e.g. /cloud/v1/tasks/{task_id}. */
  route: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when the request had no body. */
  body: unknown;
  /** Id of this request; cloud answers carry it in X-Request-ID and error bodies. */
  requestId: string;
  /** Emulator time when the request started (after tasks were settled). */
  now: number;
  state: CoreState & State;
  clock: EmulatorClock;
  settings: RouteSettings;
}

/** A route as a service declares it: a method, a path pattern with {params}, and its handler. */
export interface ServiceRoute<State extends object = object> {
  method: string;
  pattern: string;
  handler: (ctx: RouteContext<State>) => Reply;
}

/** A route as the router holds it: with the product (API family) whose error shapes it answers in. */
export interface RouteDefinition<State extends object = object> extends ServiceRoute<State> {
  product: ApiProduct;
}

/** The outcome of matching a request against the routes. */
export type RouteMatch<State extends object = object> =
  | { kind: 'found'; route: RouteDefinition<State>; params: Record<string, string> }
  | { kind: 'method-not-allowed'; pattern: string; product: ApiProduct; allowed: string[] }
  | { kind: 'not-found' };

interface Node<State extends object> {
  statics: Map<string, Node<State>>;
  param?: { name: string; node: Node<State> };
  methods: Map<string, RouteDefinition<State>>;
  pattern?: string;
}

const newNode = <State extends object>(): Node<State> => ({ statics: new Map(), methods: new Map() });

/**
 * A segment trie: matching costs one map lookup per path segment, whatever the number of
 * routes. A static segment wins over a {param} at the same position.
 */
export class Router<State extends object = object> {
  private readonly root = newNode<State>();

  /** Adds a route; throws when the same method and pattern is added twice. */
  add(route: RouteDefinition<State>): void {
    let node = this.root;
    for (const segment of splitPath(route.pattern)) {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (param) {
        const name = param[1] as string;
        if (node.param && node.param.name !== name) throw new Error(`route ${route.pattern}: conflicting parameter names at one position`);
        node.param ??= { name, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.statics.get(segment);
        if (!next) node.statics.set(segment, (next = newNode()));
        node = next;
      }
    }
    const method = route.method.toUpperCase();
    if (node.methods.has(method)) throw new Error(`duplicate route ${method} ${route.pattern}`);
    node.pattern = route.pattern;
    node.methods.set(method, route);
  }

  /** Finds the route for a method and path (path without query string). */
  match(method: string, path: string): RouteMatch<State> {
    let segments: string[];
    try {
      segments = splitPath(path).map((s) => decodeURIComponent(s));
    } catch {
      return { kind: 'not-found' };
    }
    const params: Record<string, string> = {};
    const node = this.walk(this.root, segments, 0, params);
    if (!node || node.methods.size === 0) return { kind: 'not-found' };
    const route = node.methods.get(method.toUpperCase()) ?? (method.toUpperCase() === 'HEAD' ? node.methods.get('GET') : undefined);
    if (route) return { kind: 'found', route, params };
    const first = node.methods.values().next().value as RouteDefinition<State>;
    return { kind: 'method-not-allowed', pattern: node.pattern ?? path, product: first.product, allowed: [...node.methods.keys()] };
  }

  private walk(node: Node<State>, segments: string[], index: number, params: Record<string, string>): Node<State> | undefined {
    if (index === segments.length) return node;
    const segment = segments[index] as string;
    const next = node.statics.get(segment);
    if (next) {
      const found = this.walk(next, segments, index + 1, params);
      if (found && found.methods.size > 0) return found;
    }
    if (node.param && segment !== '') {
      const found = this.walk(node.param.node, segments, index + 1, params);
      if (found && found.methods.size > 0) {
        params[node.param.name] = segment;
        return found;
      }
    }
    return undefined;
  }
}

function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
}
