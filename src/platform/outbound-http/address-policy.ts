import { isIP } from 'node:net';
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

function unmapped(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
}

/**
 * Null unless `host` (a name or an address) is a cloud metadata service or
 * link-local, where most clouds serve it. Provider endpoints refuse these
 * even on a host the operator trusts: they would hand out the machine's credentials.
 */
export function metadataRefusal(host: string): string | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (METADATA_HOSTS.has(name)) return `${host} is a cloud metadata host`;
  if (!isIP(name)) return null;
  const parsed = unmapped(name);
  if (METADATA.has(parsed.toString())) return `${host} is a cloud metadata address`;
  return parsed.range() === 'linkLocal' ? `${host} is a linkLocal address` : null;
}

/** Null when outbound traffic may go to `address`, else the reason it may not. */
export function addressRefusal(address: string, policy: AddressPolicy): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = unmapped(address);
  if (METADATA.has(parsed.toString())) return `${address} is a cloud metadata address`;
  const range = parsed.range();
  if (ALWAYS_BLOCKED.has(range)) return `${address} is a ${range} address`;
  if (PRIVATE.has(range) && !policy.allowPrivate) return `${address} is a ${range} address`;
  if (range !== 'unicast' && !PRIVATE.has(range)) return `${address} is a ${range} address`;
  return null;
}

/** Null when the URL may be called (scheme, credentials), else the reason. Addresses are checked at connect time. */
export function urlRefusal(raw: string, policy: AddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'it is not a valid URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    return 'it must use https';
  }
  if (url.username || url.password) return 'it must not contain credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // The URL parser has already written any IPv4 form (hex, octal, short) as a dotted quad: isIP suffices, and unlike
  // ipaddr.isValid it does not throw and catch for every host name.
  if (isIP(host)) return addressRefusal(host, policy);
  if (
    !policy.allowPrivate &&
    (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || !host.includes('.'))
  ) {
    return `${host} is not a public host name`;
  }
  return null;
}
