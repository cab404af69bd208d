import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Ranges a relaxed (development) policy still never reaches: link-local covers cloud metadata (169.254.169.254). */
const ALWAYS_BLOCKED = new Set(['linkLocal', 'unspecified', 'broadcast', 'multicast', 'reserved']);
/** Ranges reachable only when ALLOW_PRIVATE_NETWORK_TARGETS is on. */
const PRIVATE = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);
/** Cloud metadata services on addresses outside link-local. */
const METADATA = new Set(['fd00:ec2::254']);

export interface AddressPolicy {
  allowPrivate: boolean;
}

/** Null when outbound traffic may go to `address`, else the reason it may not. */
export function addressRefusal(address: string, policy: AddressPolicy): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const normalized = parsed.toString();
  if (METADATA.has(normalized)) return `${address} is a cloud metadata address`;
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
