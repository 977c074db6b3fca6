/**
 * Every answer the vendor's specs allow is read (issue 30 §4), for the DNS and CDN kinds: see
 * test/helpers/spec-answers-run.ts.
 */
import { describeSpecAnswers } from '../../helpers/spec-answers-run.js';

await describeSpecAnswers(['dns_zone', 'dns_rrset', 'cdn_origin_group', 'cdn_resource', 'cdn_rule']);
