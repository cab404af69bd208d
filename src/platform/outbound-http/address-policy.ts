import ipaddr from 'ipaddr.js';

/** Ranges a relaxed (development) policy still never reaches: link-local covers cloud metadata (169.254.169.254). */
const ALWAYS_BLOCKED = new Set(['linkLocal', 'unspecified', 'broadcast', 'multicast', 'reserved']);
/** Ranges reachable only when ALLOW_PRIVATE_NETWORK_TARGETS is on. */
const PRIVATE = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);
/** Cloud metadata services on addresses outside link-local (AWS over IPv6, Alibaba Cloud). */
const METADATA = new Set(['fd00:ec2::254', '100.100.100.200']);
/** Cloud metadata services by name (Google Cloud, AWS). */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

export interface AddressPolicy {
  allowPrivate: boolean;
}

/** Why an address is refused: a metadata service, a range never reached, or a private range not allowed here. */
export type AddressReason = 'metadata_host' | 'blocked_address' | 'private_address';

function unmapped(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed;
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  return v6;
}

/** True for the deprecated IPv4-compatible form ::a.b.c.d (::/96), which ipaddr.js calls unicast. */
function isIpv4Compatible(parsed: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (parsed.kind() !== 'ipv6') return false;
  const parts = (parsed as ipaddr.IPv6).parts;
  return parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7] > 1);
}

/** True for a metadata service's name (compared lowercased, without a trailing dot). */
export function isMetadataHostName(name: string): boolean {
  return METADATA_HOSTS.has(name.toLowerCase().replace(/\.$/, ''));
}

/** Null when outbound traffic may go to `address`, else the reason code and sentence. */
export function addressVerdict(
  address: string,
  policy: AddressPolicy,
): { reason: AddressReason; message: string } | null {
  if (!ipaddr.isValid(address))
    return { reason: 'blocked_address', message: `${address} is not an IP address` };
  const parsed = unmapped(address);
  if (METADATA.has(parsed.toString()) || parsed.range() === 'linkLocal') {
    const what = METADATA.has(parsed.toString()) ? 'cloud metadata' : 'linkLocal';
    return { reason: 'metadata_host', message: `${address} is a ${what} address` };
  }
  // Linux does not route ::a.b.c.d to IPv4, but a peer stack might: never a target.
  if (isIpv4Compatible(parsed)) {
    return { reason: 'blocked_address', message: `${address} is an IPv4-compatible address` };
  }
  const range = parsed.range();
  if (ALWAYS_BLOCKED.has(range))
    return { reason: 'blocked_address', message: `${address} is a ${range} address` };
  if (PRIVATE.has(range)) {
    return policy.allowPrivate
      ? null
      : { reason: 'private_address', message: `${address} is a ${range} address` };
  }
  // NAT64, 6to4, Teredo and the like can wrap any IPv4 address, a private one included.
  if (range !== 'unicast') return { reason: 'blocked_address', message: `${address} is a ${range} address` };
  return null;
}

/** Null when outbound traffic may go to `address`, else the reason it may not. */
export function addressRefusal(address: string, policy: AddressPolicy): string | null {
  return addressVerdict(address, policy)?.message ?? null;
}
