import type { Placement } from '../../cloud-common.js';
import type { Tag } from '../../tags.js';

// The load balancer service's records, as held in memory (API field names; datetimes as epoch
// ms), and the vendor's enums (cloud_api.yaml) they take their values from.

/** ProvisioningStatusEnum: a resource's lifecycle. */
export const PROVISIONING_STATUSES = ['ACTIVE', 'DELETED', 'ERROR', 'PENDING_CREATE', 'PENDING_DELETE', 'PENDING_UPDATE'] as const;
export type ProvisioningStatus = (typeof PROVISIONING_STATUSES)[number];

/** OperatingStatusEnum: how a resource is doing. */
export const OPERATING_STATUSES = ['DEGRADED', 'DRAINING', 'ERROR', 'NO_MONITOR', 'OFFLINE', 'ONLINE'] as const;
export type OperatingStatus = (typeof OPERATING_STATUSES)[number];

/** LbListenerProtocolEnum. */
export const LISTENER_PROTOCOLS = ['HTTP', 'HTTPS', 'PROMETHEUS', 'TCP', 'TERMINATED_HTTPS', 'UDP'] as const;
export type ListenerProtocol = (typeof LISTENER_PROTOCOLS)[number];

/** LbPoolProtocolEnum. */
export const POOL_PROTOCOLS = ['HTTP', 'HTTPS', 'PROXY', 'PROXYV2', 'TCP', 'UDP'] as const;
export type PoolProtocol = (typeof POOL_PROTOCOLS)[number];

/** LbAlgorithmEnum. */
export const LB_ALGORITHMS = ['LEAST_CONNECTIONS', 'ROUND_ROBIN', 'SOURCE_IP'] as const;

/** HealthMonitorTypeEnum. */
export const MONITOR_TYPES = ['HTTP', 'HTTPS', 'K8S', 'PING', 'TCP', 'TLS-HELLO', 'UDP-CONNECT'] as const;

/** HttpMethodEnum. */
export const HTTP_METHODS = ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'] as const;

/** SessionPersistenceTypeEnum. */
export const PERSISTENCE_TYPES = ['APP_COOKIE', 'HTTP_COOKIE', 'SOURCE_IP'] as const;

/** MemberConnectivity. */
export const CONNECTIVITIES = ['L2', 'L3'] as const;

/** InterfaceIPFamily. */
export const IP_FAMILIES = ['dual', 'ipv4', 'ipv6'] as const;

/** PolicyActionEnum. */
export const L7_ACTIONS = ['REDIRECT_PREFIX', 'REDIRECT_TO_POOL', 'REDIRECT_TO_URL', 'REJECT'] as const;
export type L7Action = (typeof L7_ACTIONS)[number];

/** CompareTypeEnum. */
export const L7_COMPARE_TYPES = ['CONTAINS', 'ENDS_WITH', 'EQUAL_TO', 'REGEX', 'STARTS_WITH'] as const;

/** L7RuleTypeEnum. */
export const L7_RULE_TYPES = ['COOKIE', 'FILE_TYPE', 'HEADER', 'HOST_NAME', 'PATH', 'SSL_CONN_HAS_CERT', 'SSL_DN_FIELD', 'SSL_VERIFY_RESULT'] as const;

/** SecretTypesEnum. */
export const SECRET_TYPES = ['certificate', 'opaque', 'passphrase', 'private', 'public', 'symmetric'] as const;

/** The redirect codes an L7 policy takes (the spec: 301, 302, 303, 307 or 308). */
export const REDIRECT_CODES = [301, 302, 303, 307, 308] as const;

/** The listener timeouts the platform applies when a request leaves them out or sends null (ms). */
export const LISTENER_TIMEOUT_DEFAULTS = { timeout_client_data: 50000, timeout_member_connect: 5000, timeout_member_data: 50000 } as const;

/** The connection limit `-1` (and an absent one) stands for. */
export const DEFAULT_CONNECTION_LIMIT = 100000;

/** A balancer's log forwarding (LoggingOutSerializer). */
export interface LbLogging {
  enabled: boolean;
  destination_region_id: number | null;
  topic_name: string | null;
  retention_policy: { period: number | null } | null;
}

/** The floating IP a create asked for, associated with the VIP port when the create finishes. */
export type RequestedFloatingIp = { source: 'new' } | { source: 'existing'; existing_floating_id: string };

/** A load balancer. Its `task_id` is the lock every write to it or to one of its children takes. */
export interface LoadBalancerRecord extends Placement {
  id: string;
  name: string;
  /** The flavor's name (its id, as the flavor list says). */
  flavor: string;
  vip_network_id: string | null;
  vip_subnet_id: string | null;
  vip_address: string | null;
  /** The address of the balancer's (STANDALONE) amphora on the VIP subnet, shown in `vrrp_ips`; null on the external network. */
  vrrp_address: string | null;
  vip_port_id: string | null;
  vip_ip_family: 'dual' | 'ipv4' | 'ipv6' | null;
  /** The floating IP of the create, until the create task associates it. */
  pending_floating_ip: RequestedFloatingIp | null;
  logging: LbLogging | null;
  preferred_connectivity: 'L2' | 'L3';
  admin_state_up: boolean;
  provisioning_status: ProvisioningStatus;
  /** Null: derived from the provisioning status and admin state; a fixture may pin one. */
  operating_status: OperatingStatus | null;
  tags: Tag[];
  task_id: string | null;
  creator_task_id: string | null;
  created_at: number;
  updated_at: number | null;
  next_task_error: string | null;
}

/** One user of a listener's basic authentication (UserListItem). */
/** Whether a balancer's VIP is on the external network (no network of the client): it takes, and is billed, an external IP. */
export function hasExternalVip(lb: Pick<LoadBalancerRecord, 'vip_network_id'>): boolean {
  return lb.vip_network_id === null;
}

export interface ListenerUser {
  username: string;
  encrypted_password: string;
}

/** A listener of a balancer. Its writes are tasks on the balancer. */
export interface ListenerRecord extends Placement {
  id: string;
  load_balancer_id: string;
  name: string;
  protocol: ListenerProtocol;
  protocol_port: number;
  admin_state_up: boolean;
  allowed_cidrs: string[] | null;
  connection_limit: number;
  insert_x_forwarded: boolean;
  secret_id: string | null;
  sni_secret_id: string[];
  timeout_client_data: number | null;
  timeout_member_connect: number | null;
  timeout_member_data: number | null;
  user_list: ListenerUser[];
  provisioning_status: ProvisioningStatus;
  creator_task_id: string | null;
  created_at: number;
}

/** A pool member (DetailedLbPoolMemberSerializer), kept inside its pool. */
export interface MemberRecord {
  id: string;
  address: string;
  protocol_port: number;
  weight: number;
  admin_state_up: boolean;
  backup: boolean;
  subnet_id: string | null;
  instance_id: string | null;
  monitor_address: string | null;
  monitor_port: number | null;
  provisioning_status: ProvisioningStatus;
  /** Null: derived (ONLINE under a monitor, NO_MONITOR without, OFFLINE when disabled); a fixture may pin one. */
  operating_status: OperatingStatus | null;
}

/** A pool's health monitor (LbHealthMonitorSerializer), kept inside its pool. */
export interface HealthMonitorRecord {
  id: string;
  type: (typeof MONITOR_TYPES)[number];
  delay: number;
  timeout: number;
  max_retries: number;
  max_retries_down: number;
  http_method: string | null;
  url_path: string | null;
  expected_codes: string | null;
  http_version: '1.0' | '1.1' | null;
  domain_name: string | null;
  admin_state_up: boolean;
  provisioning_status: ProvisioningStatus;
}

/** A pool's session persistence (LbSessionPersistence). */
export interface SessionPersistence {
  type: (typeof PERSISTENCE_TYPES)[number];
  cookie_name: string | null;
  persistence_granularity: string | null;
  persistence_timeout: number | null;
}

/** A pool of a balancer, on one of its listeners or on the balancer alone; its members and monitor inside. */
export interface PoolRecord extends Placement {
  id: string;
  load_balancer_id: string;
  listener_id: string | null;
  name: string;
  protocol: PoolProtocol;
  lb_algorithm: (typeof LB_ALGORITHMS)[number];
  admin_state_up: boolean;
  session_persistence: SessionPersistence | null;
  timeout_client_data: number | null;
  timeout_member_connect: number | null;
  timeout_member_data: number | null;
  secret_id: string | null;
  ca_secret_id: string | null;
  crl_secret_id: string | null;
  members: MemberRecord[];
  healthmonitor: HealthMonitorRecord | null;
  provisioning_status: ProvisioningStatus;
  creator_task_id: string | null;
  created_at: number;
}

/** An L7 rule, kept inside its policy. */
export interface L7RuleRecord {
  id: string;
  type: (typeof L7_RULE_TYPES)[number];
  compare_type: (typeof L7_COMPARE_TYPES)[number];
  key: string | null;
  value: string;
  invert: boolean;
  tags: string[];
  provisioning_status: ProvisioningStatus;
}

/** An L7 policy of a listener (a redirect, a reject, a pool), its rules inside. */
export interface L7PolicyRecord extends Placement {
  id: string;
  load_balancer_id: string;
  listener_id: string;
  name: string;
  action: L7Action;
  position: number;
  redirect_url: string | null;
  redirect_prefix: string | null;
  redirect_pool_id: string | null;
  redirect_http_code: number | null;
  tags: string[];
  rules: L7RuleRecord[];
  provisioning_status: ProvisioningStatus;
  creator_task_id: string | null;
  created_at: number;
}

/** A secret (a certificate bundle for TERMINATED_HTTPS listeners). Its payload is held and never answered. */
export interface SecretRecord extends Placement {
  id: string;
  name: string;
  secret_type: (typeof SECRET_TYPES)[number];
  expiration: number | null;
  payload: { certificate: string; certificate_chain: string; private_key: string } | null;
  /** The task creating or deleting it (never shown: SecretSerializer has no lock field). */
  task_id: string | null;
  creator_task_id: string | null;
  created_at: number;
  next_task_error: string | null;
}

/** A load balancer flavor (LbFlavorSerializer); its id is its name. */
export interface LbFlavorRecord {
  flavor_id: string;
  flavor_name: string;
  vcpus: number;
  ram: number;
}

/** The load balancer service's slice of the state: balancers and their children by id, secrets, flavors. */
export interface LoadBalancerSlice {
  readonly loadBalancers: Map<string, LoadBalancerRecord>;
  readonly lbListeners: Map<string, ListenerRecord>;
  readonly lbPools: Map<string, PoolRecord>;
  readonly lbL7Policies: Map<string, L7PolicyRecord>;
  readonly secrets: Map<string, SecretRecord>;
  readonly lbFlavors: Map<string, LbFlavorRecord>;
}

/** Whether a provisioning status is one of the PENDING_* ones (a task is changing the resource). */
export function isPending(status: ProvisioningStatus): boolean {
  return status.startsWith('PENDING_');
}

/** The children of a balancer: its listeners, pools and L7 policies. */
export function childrenOf(state: LoadBalancerSlice, lbId: string): { listeners: ListenerRecord[]; pools: PoolRecord[]; policies: L7PolicyRecord[] } {
  return {
    listeners: [...state.lbListeners.values()].filter((l) => l.load_balancer_id === lbId),
    pools: [...state.lbPools.values()].filter((p) => p.load_balancer_id === lbId),
    policies: [...state.lbL7Policies.values()].filter((p) => p.load_balancer_id === lbId),
  };
}
