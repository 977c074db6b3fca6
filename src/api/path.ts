/**
 * Building API paths from ids that come from stack files: every interpolated value is one
 * percent-encoded path segment, so a cluster name can never add segments or a query.
 */
import { EdgeformError } from '../errors.js';

/**
 * Tagged template: apiPath`/cloud/v2/k8s/clusters/${p}/${r}/${name}/upgrade`. Each value is
 * encoded with encodeURIComponent; empty, `.` and `..` values are refused (they would change
 * which resource the path names).
 */
export function apiPath(strings: TemplateStringsArray, ...values: ReadonlyArray<string | number>): string {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    const text = String(value);
    if (text === '' || text === '.' || text === '..') {
      throw new EdgeformError('EDGEFORM_API_INVALID_PATH_SEGMENT', `invalid path segment ${JSON.stringify(text)} in ${strings.join('{}')}`);
    }
    out += encodeURIComponent(text) + (strings[i + 1] ?? '');
  });
  return out;
}
