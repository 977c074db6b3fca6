// The account's origin group list is shared with the CDN resources' and rules' create plans, which check their origin_group against it.
export { originGroupAnswer, originGroupList, s3ConfigOf, type OriginGroup, type S3ConfigAnswer } from '../cdn-origin-groups.js';
