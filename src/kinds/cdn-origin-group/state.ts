import { SENSITIVE } from '../../plan/types.js';
import { s3ConfigOf, type OriginGroup } from './list.js';

/** An S3 origin as a block writes it, its keys `(sensitive)`: the platform never shows them, so they are write-only, never compared. */
export interface S3OriginState {
  type: string;
  bucket_name: string;
  region?: string;
  storage_hostname?: string;
  access_key_id: typeof SENSITIVE;
  secret_access_key: typeof SENSITIVE;
}

/** An origin as plans compare it: a host `source` or an `s3` bucket (without its keys), a backup or not, enabled or not. */
export type OriginState = ({ source: string } | { s3: S3OriginState }) & { backup: boolean; enabled: boolean };

/** A group's host and S3 origins as a block writes them (S3 keys left out), in the platform's order; FastEdge origins are not managed. */
export function originsOf(group: OriginGroup): OriginState[] {
  const out: OriginState[] = [];
  for (const s of group.sources ?? []) {
    const flags = { backup: s.backup ?? false, enabled: s.enabled ?? true };
    const s3 = s3ConfigOf(s);
    if (s3 !== undefined) {
      out.push({
        s3: {
          type: s3.s3_type,
          bucket_name: s3.s3_bucket_name,
          ...(s3.s3_region ? { region: s3.s3_region } : {}),
          ...(s3.s3_storage_hostname ? { storage_hostname: s3.s3_storage_hostname } : {}),
          access_key_id: SENSITIVE,
          secret_access_key: SENSITIVE,
        },
        ...flags,
      });
    } else if (typeof s.source === 'string' && (s.origin_type === undefined || s.origin_type === 'host')) out.push({ source: s.source, ...flags });
  }
  return out;
}

/** The state of an origin group: what plans compare and references read (`proxy_next_upstream` sorted: a set). */
export function groupState(group: OriginGroup): Record<string, unknown> {
  return {
    origin_group_id: group.id,
    name: group.name,
    origins: originsOf(group),
    use_next: group.use_next ?? false,
    proxy_next_upstream: [...(group.proxy_next_upstream ?? [])].sort(),
  };
}
