import { must } from '../errors.js';
import type { ProviderContext } from './provider.js';
import type { ListEndpoint, ListMembers } from './list-read.js';
import { readAllPages, type ListPage, type PageRequest, type Paging } from './paging.js';
import { RESOURCE_KINDS, type ResourceAttributes, type ResourceType } from './registry.js';

/** A cloud project and region: where floating IPs, instances and Kubernetes clusters are listed. */
export interface CloudScope {
  project_id: number;
  region_id: number;
}

/** A cloud project: where SSH keys (which belong to no region) are listed. */
export interface ProjectScope {
  project_id: number;
}

/** A reseller: where notification settings are listed. */
export interface ResellerScope {
  reseller_id: number;
}

/** A streaming video: where its subtitles are listed. */
export interface VideoScope {
  video_id: number;
}

/** The whole account: FastEdge apps, streaming players and quota requests are listed account-wide. */
export type AccountScope = Record<never, never>;

/** The scopes a kind's resources are listed in, by name. */
export interface Scopes {
  cloud: CloudScope;
  project: ProjectScope;
  reseller: ResellerScope;
  video: VideoScope;
  account: AccountScope;
}

/** Which scope a kind's list needs: `cloud` (a project and region), `project`, `reseller`, `video`, or `account` (none). */
export type ScopeKind = keyof Scopes;

/** One scope with its name, as the import command hands it to a kind. */
export type ImportScope = { [K in ScopeKind]: { kind: K } & Scopes[K] }[ScopeKind];

/**
 * A kind's list endpoint by the scope it lists: the one fetcher of the kind's list pages that
 * both the grouped reads (through listEndpointOf) and `edgeform import` (through listAll) use, so
 * the request and the schema its answer is checked with are written once.
 */
export interface KindList<Scope, Item> {
  /** How the endpoint pages (see Paging). */
  paging: Paging;
  /** The list's path for a scope (`/cloud/v1/floatingips/1/76`), for messages and import comments. */
  path(scope: Scope): string;
  /** Fetches one page of the list (its answer checked with the kind's zod schema). */
  fetchPage(ctx: ProviderContext, scope: Scope, page: PageRequest): Promise<ListPage<Item>>;
}

/**
 * The part of a grouped read's ListEndpoint that comes from the kind's list: how it pages, how
 * it is named in messages, and its page fetcher, for the scope of the members read together.
 */
export function listEndpointOf<T extends ResourceType, Scope, Item>(
  list: KindList<Scope, Item>,
  scopeOf: (members: ListMembers<T>) => Scope,
): Pick<ListEndpoint<T, Item>, 'paging' | 'describe' | 'fetchPage'> {
  return {
    paging: list.paging,
    describe: (members) => `GET ${list.path(scopeOf(members))}`,
    fetchPage: (ctx, members, page) => fetchListPage(ctx, list, scopeOf(members), page),
  };
}

/**
 * One page of a kind's list. Within one reading of a stack (ProviderContext.readOnce) a page
 * asked for twice, by a grouped read and a prune listing, is fetched once: the same list, scope
 * and page are the same request.
 */
export function fetchListPage<Scope, Item>(ctx: ProviderContext, list: KindList<Scope, Item>, scope: Scope, page: PageRequest): Promise<ListPage<Item>> {
  const fetch = () => list.fetchPage(ctx, scope, page);
  return ctx.readOnce ? ctx.readOnce(list, JSON.stringify([scope, page]), fetch) : fetch();
}

/** Settings of {@link listAll}. */
export interface ListAllOptions {
  /** Items asked for per page of an `offset` list; default the endpoint's largest page. */
  pageSize?: number;
  /** Pages followed at most before failing (EDGEFORM_PAGING); default MAX_LIST_PAGES. */
  maxPages?: number;
  /** Called after each page that more pages follow, with the number of distinct items found so far (progress of long lists). */
  onPage?: (found: number) => void;
}

/**
 * Every item of a list in one scope, in the platform's order, each once (by `itemId`), through
 * the one paging loop (readPages): an `offset` list is followed until its `count` is reached,
 * or, without a count, to a page shorter than asked for; a `pages` list to an empty page (or one
 * whose `next` names none); a `none` list is one answer. A page of nothing new ends it (the
 * platform repeats itself). Bounded by `maxPages`: a list that never ends is an EDGEFORM_PAGING
 * error.
 */
export async function listAll<Scope, Item>(
  ctx: ProviderContext,
  list: KindList<Scope, Item>,
  scope: Scope,
  itemId: (item: Item) => string,
  options: ListAllOptions = {},
): Promise<Item[]> {
  const paged = { paging: list.paging, describe: `GET ${list.path(scope)}`, itemId, fetchPage: (page: PageRequest) => fetchListPage(ctx, list, scope, page) };
  return (await readAllPages(paged, options)).items;
}

/** The attributes an imported block states: every field of the kind but those that only steer edgeform (`ensure`, `tags_policy`, `rules_policy`). */
export type ImportedAttributes<T extends ResourceType> = Omit<ResourceAttributes[T], 'ensure' | 'tags_policy' | 'rules_policy'>;

/** What a kind contributes to `edgeform import`: its list, and how a list item becomes a block. */
export interface KindImportSpec<T extends ResourceType, S extends ScopeKind, Item> {
  /** The scope the kind's list needs. */
  scope: S;
  list: KindList<Scopes[S], Item>;
  /** The platform id of an item (what the block is pinned by). */
  itemId(item: Item): string;
  /** The block's attributes: every field of the kind with the item's live value (read-only parts, such as read-only tags, left out). */
  attributes(item: Item, scope: Scopes[S]): ImportedAttributes<T>;
  /** What the block is named after: the live name, else something made of the id (the stack writer makes it a valid, unique name). */
  blockName(item: Item): string;
  /** What the block's comment says of the item besides its id, e.g. `[['name', 'web-1']]`. */
  facts?(item: Item): ReadonlyArray<readonly [string, string | number | null | undefined]>;
  /**
   * For a kind whose resources record their owner (ownership tags, a CDN description's stack mark,
   * a DNS zone's owner record): the stack (and address) that owns an item, when an edgeform stack
   * does. Such an item is left out (with why, naming the owner), and so is what an import would
   * make refer to it (a zone's record sets, a resource's rules): adopting it would take it from
   * that stack, or leave two stacks pruning it. `what` says how the stack owns it, `takeOver` how
   * to take it over (default: the block's moved_from).
   */
  ownedBy?(item: Item): ItemOwner | undefined;
  /** For a cloud kind: whether a region offers it (Kubernetes: `has_k8s`); absent, every region does. */
  servedIn?(region: { has_k8s?: boolean | undefined }): boolean;
  /**
   * For a kind listed per project and region (or per project): the usage counts of the
   * platform's client quotas (`GET /cloud/v2/client_quotas`: a region's regional quotas, or the
   * global ones for a project kind) that count its resources, such as `floating_count_usage`.
   * Import leaves out the kind's lists in a region (for a project kind, in every project) where
   * the platform counts none of them: every such count is there and 0. Absent: always listed.
   */
  quotaUsage?: readonly string[];
  /**
   * Which of the block's attributes hold the platform id of which kind (a subnet's
   * `{ network_id: 'cloud_network' }`): where the value is the id of a block of that kind imported
   * with it, the stack says `${TYPE.NAME.id}` instead of the literal id (see writeStack); with a
   * `field`, `${TYPE.NAME.FIELD}`, a readable field holding the id (a record set's `zone`:
   * `${dns_zone.NAME.name}`, which the loader writes in as it is known without a read). Only
   * fields a reference may stand in (not the block's identity, natural key, project or region),
   * but an identity field naming another block's literal identity field.
   */
  refersTo?: Readonly<Partial<Record<keyof ImportedAttributes<T> & string, ImportReferTarget>>>;
  /**
   * Kinds imported with this one when it is the KIND named (`import dns_zone` writes the zones'
   * record sets too, `import cdn_resource` the resources' rules and origin groups): only those
   * related to a block of KIND kept, either naming it in their `refersTo` fields (a rule's
   * `resource_id`) or named by a kept block's `refersTo` field (a resource's `origin_group`).
   */
  alsoImports?: readonly ResourceType[];
  /**
   * Sensitive fields the platform never answers (a secret's `private_key`), by field: the prefix
   * of the `${env:NAME}` placeholder import writes for it (see DraftBlock.envPlaceholders), with a
   * warning naming the variable to set.
   */
  envPlaceholders?: Readonly<Record<string, string>>;
  /** Whether a block's attributes are what `--name NAME` names; absent: its `name` attribute equals NAME. Pure. */
  matchesName?(attributes: ImportedAttributes<T>, name: string): boolean;
  /**
   * What the kind's resources are named by on the command line, when not `name`: `cname` for CDN
   * resources, so `import cdn_resource --cname cdn.example.com` (`--name` is the same). A flag of
   * that spelling is refused for kinds named otherwise.
   */
  nameFlag?: 'cname';
  /**
   * For a kind an import of named resources brings (KindImportSpec.alsoImports) whose items belong
   * to resources of another kind (a resource's rules, a zone's record sets): that kind, and the
   * list of only the items of the resources with these import ids, so `import cdn_resource
   * --cname X` lists the rules of X alone rather than of every resource of the account.
   */
  within?: { type: ResourceType; list(ids: readonly string[]): KindList<Scopes[S], Item> };
}

/** Who owns an item an import leaves out (see KindImportSpec.ownedBy). */
export interface ItemOwner {
  stack: string;
  address: string;
  /** How the stack owns it: `manages it as ADDRESS` by default. */
  what?: string;
  /** How to take it over: `give its block moved_from: STACK/ADDRESS` by default. */
  takeOver?: string;
}

/** What a `refersTo` field names: a kind (the reference reads `id`), or a kind and the readable field it reads. */
export type ImportReferTarget = ResourceType | { readonly type: ResourceType; readonly field: string };

/** One resource found by a kind's import: its block's type, name hint, attributes and where it came from. */
export interface ImportedResource {
  type: ResourceType;
  /** The block name to derive from (sanitized and made unique by the stack writer). */
  name: string;
  attributes: Record<string, unknown>;
  /** Where it came from, for the block's comment: `GET /cloud/v1/floatingips/1/76: id 726e…`. */
  source: string;
  /** Its platform id (what other imported blocks' `refersTo` fields may hold). */
  id: string;
  /** Its attributes holding the id of another kind (KindImportSpec.refersTo). */
  refersTo?: Readonly<Record<string, ImportReferTarget>>;
  /** Its sensitive fields written as `${env:...}` placeholders (KindImportSpec.envPlaceholders). */
  envPlaceholders?: Readonly<Record<string, string>>;
}

/** A live item a kind's import left out, and why: the import goes on without it and says so. */
export interface SkippedItem {
  type: ResourceType;
  /** What it is: `GET /cloud/v1/floatingips/1/76: id "726e…"`. */
  source: string;
  /** Why it makes no block: `tags.env: a tag value must not start or end with whitespace`. */
  reason: string;
  /** For an item left out because another stack owns it: its import id and that stack (what refers to it is left out too). */
  owned?: { id: string; stack: string };
}

/** What a kind's import found in one scope: the resources, and the items it left out. */
export interface KindDiscovery {
  found: ImportedResource[];
  skipped: SkippedItem[];
}

/** A kind's import, as the import command uses it: which scope it needs, and the discovery of one scope. */
export interface KindImporter<T extends ResourceType = ResourceType> {
  type: T;
  scope: ScopeKind;
  /** For a cloud kind: whether a region the platform lists offers it (see KindImportSpec.servedIn). */
  servedIn(region: { has_k8s?: boolean | undefined }): boolean;
  /** The client quota usage counts that count the kind's resources (see KindImportSpec.quotaUsage); empty: always listed. */
  quotaUsage: readonly string[];
  /**
   * Lists every resource of the kind in the scope (all pages) and turns each item into block
   * attributes, checked with the kind's own schema: an item that makes no valid block is
   * skipped, named with the request, its id and why, never a stack that does not load and never
   * the end of the import.
   */
  discover(ctx: ProviderContext, scope: ImportScope, options?: ListAllOptions & { within?: readonly string[] }): Promise<KindDiscovery>;
  /** The kind whose resources this kind's items belong to, when its import can list the items of named ones only (`within` of discover). */
  within?: ResourceType;
  /** See KindImportSpec.alsoImports. */
  alsoImports: readonly ResourceType[];
  /** Whether an imported block of this kind is what `--name NAME` names (see KindImportSpec.matchesName). Pure. */
  matchesName(attributes: Readonly<Record<string, unknown>>, name: string): boolean;
  /** The other spelling of `--name` for this kind, if any (see KindImportSpec.nameFlag). */
  nameFlag?: 'cname';
}

/** Builds a kind's importer from its spec (see KindImportSpec). */
export function defineImport<T extends ResourceType, S extends ScopeKind, Item>(type: T, spec: KindImportSpec<T, S, Item>): KindImporter<T> {
  return {
    type,
    scope: spec.scope,
    servedIn: (region) => spec.servedIn?.(region) ?? true,
    quotaUsage: spec.quotaUsage ?? [],
    alsoImports: spec.alsoImports ?? [],
    matchesName: (attributes, name) => (spec.matchesName ? spec.matchesName(attributes as ImportedAttributes<T>, name) : attributes.name === name),
    ...(spec.nameFlag === undefined ? {} : { nameFlag: spec.nameFlag }),
    ...(spec.within === undefined ? {} : { within: spec.within.type }),
    async discover(ctx, importScope, options = {}) {
      if (importScope.kind !== spec.scope) throw new Error(`${type} is listed by ${spec.scope}, not by ${importScope.kind}`);
      const { kind: _kind, ...rest } = importScope;
      const scope = rest as Scopes[S];
      const { within, ...listOptions } = options;
      const list = within !== undefined && spec.within !== undefined ? spec.within.list(within) : spec.list;
      const path = list.path(scope);
      const items = await listAll(ctx, list, scope, spec.itemId, listOptions);
      const discovery: KindDiscovery = { found: [], skipped: [] };
      for (const item of items) {
        const id = spec.itemId(item);
        const facts = (spec.facts?.(item) ?? []).filter(([, value]) => value !== null && value !== undefined && value !== '');
        const described = [['id', id] as const, ...facts].map(([label, value]) => `${label} ${typeof value === 'number' ? String(value) : JSON.stringify(value)}`);
        const source = `GET ${path}: ${described.join(', ')}`;
        const owner = spec.ownedBy?.(item);
        if (owner !== undefined) {
          const what = owner.what ?? `manages it as ${owner.address}`;
          const takeOver = owner.takeOver ?? `to move it into this one, give its block moved_from: ${owner.stack}/${owner.address}`;
          discovery.skipped.push({
            type,
            source,
            reason: `edgeform stack "${owner.stack}" ${what}; import leaves it to that stack (${takeOver})`,
            owned: { id, stack: owner.stack },
          });
          continue;
        }
        const attributes = { ...spec.attributes(item, scope) } as Record<string, unknown>;
        const parsed = RESOURCE_KINDS[type].schema.safeParse(attributes);
        if (!parsed.success) {
          const issue = must(parsed.error.issues[0], 'parsed.error.issues[0]');
          discovery.skipped.push({ type, source, reason: `it makes no valid ${type} block: ${issue.path.map(String).join('.') || '(block)'}: ${issue.message}` });
          continue;
        }
        discovery.found.push({
          type,
          name: spec.blockName(item),
          attributes,
          source,
          id,
          ...(spec.refersTo ? { refersTo: spec.refersTo as Record<string, ImportReferTarget> } : {}),
          ...(spec.envPlaceholders ? { envPlaceholders: spec.envPlaceholders } : {}),
        });
      }
      return discovery;
    },
  };
}
