import { dnsService } from './dns/index.js';
import { cdnService } from './cdn/index.js';
import { billingService } from './billing/index.js';
import { fastedgeService } from './fastedge/index.js';
import { floatingIpsService } from './floating-ips/index.js';
import { iamService } from './iam/index.js';
import { imagesService } from './images/index.js';
import { instancesService } from './instances/index.js';
import { k8sService } from './k8s/index.js';
import { loadBalancersService } from './load-balancers/index.js';
import { networksService } from './networks/index.js';
import { projectsService } from './projects/index.js';
import { quotaService } from './quota/index.js';
import { securityGroupsService } from './security-groups/index.js';
import { sshKeysService } from './ssh-keys/index.js';
import { streamingService } from './streaming/index.js';
import { tasksService } from './tasks/index.js';
import { volumesService } from './volumes/index.js';

/**
 * The emulator's platform services, each once. The server registers their routes, the store
 * composes their slices, the fixtures file is their sections, the control routes and reset go
 * through them: adding a service is its module and a line here. The order is the order of their
 * sections in GET /__emulator/state and of fixture problems.
 */
export const EMULATOR_SERVICES = [
  floatingIpsService,
  instancesService,
  securityGroupsService,
  volumesService,
  k8sService,
  tasksService,
  fastedgeService,
  streamingService,
  iamService,
  quotaService,
  projectsService,
  dnsService,
  cdnService,
  networksService,
  sshKeysService,
  loadBalancersService,
  imagesService,
  billingService,
] as const;

type Service = (typeof EMULATOR_SERVICES)[number];
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every service's slice of the state, together (`emu.state.instances`, `emu.state.fastedgeApps`, ...). */
export type ServiceSlices = Intersection<ReturnType<Service['createState']>>;

/** Every service's fixtures sections, together (zod schemas by section name). */
export type ServiceSections = Intersection<Service['fixtures']>;

/** The kinds of resource the mutation log names (`floating_ip`, `instance`, ...). */
export type MutationKind = Service['mutationKinds'][number];

/** The kinds of resource cloud tasks lock (`floating_ip`, `instance`, `k8s_cluster`). */
export type TaskResourceKind = Service['taskTargets'][number]['kind'];
