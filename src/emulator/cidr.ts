import ipaddr from 'ipaddr.js';

// Addresses and networks as the cloud's subnets take them (pydantic's ipvanyaddress and
// ipvanynetwork): IPv4 in four-part decimal, IPv6 in any standard form.

/** A parsed network: its address (host bits zero), prefix length and IP version. */
export interface IpNetwork {
  address: ipaddr.IPv4 | ipaddr.IPv6;
  bits: number;
  version: 4 | 6;
}

/** Whether text is an IPv4 (four-part decimal) or IPv6 address. */
export function isIpAddress(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || (text.includes(':') && ipaddr.IPv6.isValid(text));
}

/** The version of an address (see isIpAddress), or undefined when it is none. */
export function ipVersionOf(text: string): 4 | 6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return 4;
  return text.includes(':') && ipaddr.IPv6.isValid(text) ? 6 : undefined;
}

/** A network in CIDR notation, or why it is not one (a host bit set counts: `10.0.0.5/24`). */
export function parseNetwork(text: string): IpNetwork | { error: string } {
  const slash = text.indexOf('/');
  const version = slash < 0 ? undefined : ipVersionOf(text.slice(0, slash));
  const prefix = slash < 0 ? '' : text.slice(slash + 1);
  if (version === undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > (version === 4 ? 32 : 128)) return { error: 'value is not a valid IPv4 or IPv6 network' };
  const [address, bits] = ipaddr.parseCIDR(text);
  const base = version === 4 ? ipaddr.IPv4.networkAddressFromCIDR(text) : ipaddr.IPv6.networkAddressFromCIDR(text);
  if (base.toString() !== address.toString()) return { error: 'value has host bits set' };
  return { address, bits, version };
}

/** Whether two networks share an address. */
export function overlaps(a: IpNetwork, b: IpNetwork): boolean {
  if (a.address.kind() !== b.address.kind()) return false;
  // ipaddr.js types match() per address family; the kinds were compared just above, so the casts are safe.
  return a.address.match(b.address as never, b.bits) || b.address.match(a.address as never, a.bits);
}

/** Whether an address (see isIpAddress) lies in a network. */
export function contains(network: IpNetwork, text: string): boolean {
  const address = ipaddr.parse(text);
  // ipaddr.js types match() per address family; the && checks the kinds are the same first.
  return address.kind() === network.address.kind() && address.match(network.address as never, network.bits);
}

/** The network's first host address (its address + 1), as the platform's default gateway. */
export function firstHost(network: IpNetwork): string {
  const bytes = network.address.toByteArray();
  for (let i = bytes.length - 1; i >= 0; i--) {
    bytes[i] = ((bytes[i] ?? 0) + 1) & 0xff;
    if (bytes[i] !== 0) break;
  }
  return ipaddr.fromByteArray(bytes).toString();
}

/** The usable addresses of an IPv4 network (without its network and broadcast addresses); null for IPv6 (too many for an integer). */
export function hostCount(network: IpNetwork): number | null {
  return network.version === 4 ? Math.max(0, 2 ** (32 - network.bits) - 2) : null;
}

/** The network's `n`th address (its address + n), or undefined past its end (IPv4: its broadcast address too). */
export function nthHost(network: IpNetwork, n: number): string | undefined {
  const count = hostCount(network);
  if (count !== null && n > count) return undefined;
  const bytes = network.address.toByteArray();
  let carry = n;
  for (let i = bytes.length - 1; i >= 0 && carry > 0; i--) {
    const sum = (bytes[i] ?? 0) + (carry % 256);
    bytes[i] = sum & 0xff;
    carry = Math.floor(carry / 256) + (sum > 0xff ? 1 : 0);
  }
  const text = ipaddr.fromByteArray(bytes).toString();
  return contains(network, text) ? text : undefined;
}
