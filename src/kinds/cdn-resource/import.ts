import { knownOptions } from '../cdn-options.js';
import { defineImport, listAll, type AccountScope, type KindList } from '../kind-list.js';
import { listAutomatedCertificates } from './certificates.js';
import { resourceList, type CdnResource } from './list.js';
import { splitPurgeRecord } from '../cdn-purge-record.js';
import { splitMark, stackMark } from './mark.js';
import { resourceState } from './state.js';

/** A resource, and whether the certificate it serves is one of the account's Let's Encrypt ones. */
interface ListedResource {
  resource: CdnResource;
  automated: boolean;
}

/**
 * The account's CDN resources (the resource list, every page), each with whether its certificate
 * is a Let's Encrypt one: the account's Let's Encrypt certificates are listed once, and only when
 * a resource serves a certificate. Answered as one page.
 */
const listedResources: KindList<AccountScope, ListedResource> = {
  paging: { kind: 'none' },
  path: () => resourceList.path({}),
  async fetchPage(ctx) {
    const resources = await listAll(ctx, resourceList, {}, (r) => String(r.id));
    const serving = resources.some((r) => typeof r.sslData === 'number');
    const automated = serving ? new Set((await listAutomatedCertificates(ctx)).map((c) => c.id)) : new Set<number>();
    return { items: resources.map((resource) => ({ resource, automated: typeof resource.sslData === 'number' && automated.has(resource.sslData) })) };
  },
};

/**
 * Importing CDN resources: every resource of the account, pinned by its id, with its cname,
 * origin group (a reference when that group is imported too), protocol, hostnames, activity,
 * description (without a stack mark), SSL (`ssl_automated: true` for a Let's Encrypt
 * certificate, else its `ssl_data`) and every option the platform shows set (those edgeform knows). Named after
 * the cname. Imported as the KIND named, it brings its rules and its origin group (each once).
 * A resource carrying a stack's mark is left out, with its rules: it is that stack's.
 */
export const resourceImport = defineImport('cdn_resource', {
  scope: 'account',
  list: listedResources,
  itemId: ({ resource }) => String(resource.id),
  attributes: ({ resource, automated }) => {
    const s = resourceState(resource);
    const options = knownOptions('resource', s.options as Record<string, unknown>);
    return {
      resource_id: resource.id,
      cname: resource.cname,
      ...(s.origin_group === null ? {} : { origin_group: s.origin_group as number }),
      // The platform's value as it is: import writes it as data, and reading the stack back checks it against the kind's schema.
      ...(s.origin_protocol === null ? {} : { origin_protocol: s.origin_protocol as never }),
      ...((s.secondary_hostnames as string[]).length > 0 ? { secondary_hostnames: s.secondary_hostnames as string[] } : {}),
      ...(s.active === null ? {} : { active: s.active as boolean }),
      ...(s.description === '' ? {} : { description: s.description as string }),
      ssl_enabled: s.ssl_enabled as boolean,
      ...(automated ? { ssl_automated: true } : s.ssl_data === null ? {} : { ssl_data: s.ssl_data as number }),
      // The platform's value as it is: import writes it as data, and reading the stack back checks it against the kind's schema.
      ...(Object.keys(options).length > 0 ? { options: options as never } : {}),
    };
  },
  blockName: ({ resource }) => resource.cname,
  facts: ({ resource }) => [['cname', resource.cname]],
  // A resource carrying a stack's mark is that stack's (its prune destroys it once undeclared), with its rules.
  ownedBy({ resource }) {
    // The purge record (cdn-purge-record.ts) stands after the mark: it is set apart first.
    const { stack } = splitMark(splitPurgeRecord(resource.description).rest);
    if (stack === null) return undefined;
    return {
      stack,
      address: `cdn_resource.${resource.cname}`,
      what: `created it (its description ends with the stack mark ${stackMark(stack)})`,
      takeOver: 'to take it over, declare it in that stack, or remove the mark from its description on the platform',
    };
  },
  refersTo: { origin_group: 'cdn_origin_group' },
  // `import cdn_resource` writes each resource's rules and origin group too, with references
  // between them; a resource is named by its cname (`--cname`, or `--name`), in any case.
  alsoImports: ['cdn_origin_group', 'cdn_rule'],
  nameFlag: 'cname',
  matchesName: (attributes, name) => attributes.cname.toLowerCase() === name.toLowerCase(),
});
