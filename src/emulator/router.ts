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
  /** The node after a {param} segment at this position, whatever the parameter's name. */
  param?: Node<State>;
  methods: Map<string, { route: RouteDefinition<State>; names: string[] }>;
  pattern?: string;
}

const newNode = <State extends object>(): Node<State> => ({ statics: new Map(), methods: new Map() });

/**
 * A segment trie: matching costs one map lookup per path segment, whatever the number of
 * routes. A static segment wins over a {param} at the same position. Parameters are positions
 * of the trie; their names belong to each route, so routes may name one position differently
 * (the vendor's DNS paths have `/dns/v2/zones/{name}` beside `/dns/v2/zones/{zoneName}/rrsets`).
 */
export class Router<State extends object = object> {
  private readonly root = newNode<State>();

  /** Adds a route; throws when the same method and pattern is added twice. */
  add(route: RouteDefinition<State>): void {
    let node = this.root;
    const names: string[] = [];
    for (const segment of splitPath(route.pattern)) {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (param) {
        const name = param[1] as string;
        if (names.includes(name)) throw new Error(`route ${route.pattern}: parameter {${name}} appears twice`);
        names.push(name);
        node = node.param ??= newNode();
      } else {
        let next = node.statics.get(segment);
        if (!next) node.statics.set(segment, (next = newNode()));
        node = next;
      }
    }
    const method = route.method.toUpperCase();
    if (node.methods.has(method)) throw new Error(`duplicate route ${method} ${route.pattern}`);
    node.pattern ??= route.pattern;
    node.methods.set(method, { route, names });
  }

  /** Finds the route for a method and path (path without query string). */
  match(method: string, path: string): RouteMatch<State> {
    let segments: string[];
    try {
      segments = splitPath(path).map((s) => decodeURIComponent(s));
    } catch {
      return { kind: 'not-found' };
    }
    const values: string[] = [];
    const node = this.walk(this.root, segments, 0, values);
    if (!node || node.methods.size === 0) return { kind: 'not-found' };
    const entry = node.methods.get(method.toUpperCase()) ?? (method.toUpperCase() === 'HEAD' ? node.methods.get('GET') : undefined);
    if (entry) {
      const params: Record<string, string> = {};
      entry.names.forEach((name, i) => (params[name] = values[i] as string));
      return { kind: 'found', route: entry.route, params };
    }
    const first = node.methods.values().next().value as { route: RouteDefinition<State> };
    return { kind: 'method-not-allowed', pattern: node.pattern ?? path, product: first.route.product, allowed: [...node.methods.keys()] };
  }

  /** The node the segments lead to (a static segment first, then a parameter), with the parameters' values in path order. */
  private walk(node: Node<State>, segments: string[], index: number, values: string[]): Node<State> | undefined {
    if (index === segments.length) return node;
    const segment = segments[index] as string;
    const next = node.statics.get(segment);
    if (next) {
      const found = this.walk(next, segments, index + 1, values);
      if (found && found.methods.size > 0) return found;
    }
    if (node.param && segment !== '') {
      const found = this.walk(node.param, segments, index + 1, values);
      if (found && found.methods.size > 0) {
        values.unshift(segment);
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
