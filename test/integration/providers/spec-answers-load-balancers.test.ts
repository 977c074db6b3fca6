/**
 * Every answer the vendor's specs allow is read (issue 30 §4), for the load balancer kinds
 * (balancers, listeners, pools, L7 policies, secrets): see test/helpers/spec-answers-run.ts.
 */
import { describeSpecAnswers } from '../../helpers/spec-answers-run.js';

await describeSpecAnswers(['cloud_load_balancer', 'cloud_lb_listener', 'cloud_lb_pool', 'cloud_lb_l7policy', 'cloud_secret']);
