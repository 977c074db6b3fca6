/**
 * Every answer the vendor's specs allow is read (issue 30 §4), for the cloud kinds of compute and
 * quota: see test/helpers/spec-answers-run.ts.
 */
import { describeSpecAnswers } from '../../helpers/spec-answers-run.js';

await describeSpecAnswers(['cloud_floating_ip', 'cloud_instance', 'cloud_k8s_cluster', 'cloud_quota_limit_request']);
