/**
 * Every answer the vendor's specs allow is read (issue 30 §4), for the cloud kinds of networks,
 * keys, security groups and volumes: see test/helpers/spec-answers-run.ts.
 */
import { describeSpecAnswers } from '../../helpers/spec-answers-run.js';

await describeSpecAnswers(['cloud_network', 'cloud_subnet', 'cloud_ssh_key', 'cloud_security_group', 'cloud_volume']);
