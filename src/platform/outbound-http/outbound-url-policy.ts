import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { AddressReason, addressVerdict, isMetadataHostName } from './address-policy';

/** The longest URL any outbound field accepts, in characters. */
export const MAX_URL_LENGTH = 2048;
/** The longest host name (RFC 1035), after normalisation. */
export const MAX_HOST_LENGTH = 253;
/** The longest label of a host name (RFC 1035). */
export const MAX_LABEL_LENGTH = 63;

/** The sentence every field naming an outbound URL or host carries in the OpenAPI document. */
export const OUTBOUND_POLICY_NOTE =
  'Outbound-target policy: the host is normalised first (lowercase, one trailing dot removed, IDNA to punycode, ' +
  'IPv4 in any notation to dotted decimal) and the rules apply to that form (the URL is stored as sent); only http(s) (https unless ' +
  'the field allows plain http), no user:password@ and no #fragment, at most 2048 characters, a host of at most ' +
  '253 and labels of at most 63; cloud metadata hosts (metadata.google.internal, instance-data, 169.254.0.0/16, ' +
  'fe80::/10, fd00:ec2::254, 100.100.100.200) are always refused; loopback, private and local names or addresses ' +
  'only where the field allows them (ALLOW_PRIVATE_NETWORK_TARGETS, TRUSTED_AI_HOSTS); a name is resolved when ' +
  'saved and every address it resolves to must be allowed (a name that does not resolve yet is accepted), and ' +
  'the addresses are checked again on every connection. A refusal answers 422 with `errors[].reason`.';

/** Why a URL or host is refused: the `reason` of the 422's field error. */
export type OutboundReason =
  | AddressReason
  | 'invalid_url'
  | 'url_too_long'
  | 'scheme_not_allowed'
  | 'userinfo_not_allowed'
  | 'fragment_not_allowed'
  | 'invalid_host'
  | 'host_too_long'
  | 'local_host_name'
  | 'host_not_allowed';

export interface OutboundRefusal {
  reason: OutboundReason;
  /** A sentence without the field name, for example `it must use https`. */
  message: string;
}

/** What a field may reach; each field's rules are built from the configuration by OutboundPolicy. */
export interface TargetRules {
  /** Loopback, private, unique-local and CGNAT addresses, and local names (localhost, single labels), allowed. */
  allowPrivate: boolean;
  /** Plain http besides https: never, always, or only to a loopback host. */
  plainHttp: 'never' | 'always' | 'loopback';
}

/** An accepted target: the parsed URL and its normalised host (IPv6 without brackets). */
export interface OutboundTarget {
  url: URL;
  host: string;
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/;
/** Names that only ever mean this machine or its local network. */
const LOCAL_SUFFIXES = [
  '.localhost',
  '.local',
  '.localdomain',
  '.internal',
  '.home.arpa',
  '.lan',
  '.intranet',
];
const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain']);

const refuse = (reason: OutboundReason, message: string): OutboundRefusal => ({ reason, message });
export const isRefusal = (value: unknown): value is OutboundRefusal =>
  typeof value === 'object' && value !== null && 'reason' in value;

/**
 * The host as the policy compares it: brackets removed, IPv6 in canonical
 * form, names lowercased, IDNA-mapped to punycode (so fullwidth or circled
 * forms of `localhost` or `127.0.0.1` become those), IPv4 in any WHATWG
 * notation (2130706433, 0x7f.1, 017700000001) written as a dotted quad, and
 * one trailing dot removed.
 */
export function normalizeHost(raw: string): string | OutboundRefusal {
  const bare = raw.replace(/^\[(.*)\]$/, '$1');
  if (bare === '') return refuse('invalid_host', 'it must name a host');
  // The WHATWG form, as a URL's host gets it (ipaddr.js would read ::127.0.0.1 as IPv4-mapped).
  if (isIP(bare) === 6) return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const ascii = domainToASCII(bare);
  if (ascii === '') return refuse('invalid_host', `${shown(bare)} is not a valid host name`);
  const host = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  if (isIP(host)) return host;
  if (host.length > MAX_HOST_LENGTH) {
    return refuse('host_too_long', `its host is longer than ${MAX_HOST_LENGTH} characters`);
  }
  for (const label of host.split('.')) {
    if (label.length > MAX_LABEL_LENGTH) {
      return refuse('host_too_long', `a label of its host is longer than ${MAX_LABEL_LENGTH} characters`);
    }
    if (!LABEL.test(label)) return refuse('invalid_host', `${shown(host)} is not a valid host name`);
  }
  return host;
}

/** True for loopback addresses and names that only mean this machine. */
export function isLoopbackName(host: string): boolean {
  if (LOCAL_NAMES.has(host) || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && ipaddr.process(host).range() === 'loopback';
}

/**
 * Null when a normalised host may be named by a field: never a metadata
 * service; an address by the address rules; a name must look public
 * (dotted, not a local suffix) unless the field allows private targets.
 * What a name resolves to is checked separately (at save and connect time).
 */
export function hostRefusal(host: string, rules: TargetRules): OutboundRefusal | null {
  if (isMetadataHostName(host)) return refuse('metadata_host', `${host} is a cloud metadata host`);
  if (isIP(host)) return addressVerdict(host, rules);
  if (rules.allowPrivate) return null;
  if (
    LOCAL_NAMES.has(host) ||
    LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix)) ||
    !host.includes('.')
  ) {
    return refuse('local_host_name', `${host} is not a public host name`);
  }
  return null;
}

/**
 * Checks a host name field (a connector's database host: host, not a URL)
 * and answers its normalised form or the refusal.
 */
export function checkHost(raw: string, rules: TargetRules): string | OutboundRefusal {
  const host = normalizeHost(raw);
  if (isRefusal(host)) return host;
  return hostRefusal(host, rules) ?? host;
}

/**
 * Checks a URL field and answers the parsed URL with its normalised host,
 * or the refusal. Everything but the addresses a name resolves to.
 */
export function checkUrl(raw: string, rules: TargetRules): OutboundTarget | OutboundRefusal {
  if (raw.length > MAX_URL_LENGTH)
    return refuse('url_too_long', `it is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('invalid_url', 'it is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return refuse('scheme_not_allowed', `it must use https, not ${url.protocol.slice(0, 20)}`);
  }
  // The raw text, too: `https://a.example#` parses to an empty hash, and `@` with an empty user to no username.
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/*[^/?#]*@/i.test(raw)) {
    return refuse('userinfo_not_allowed', 'it must not contain credentials');
  }
  if (url.hash || raw.includes('#')) return refuse('fragment_not_allowed', 'it must not have a fragment');
  const host = normalizeHost(url.hostname);
  if (isRefusal(host)) return host;
  const refused = hostRefusal(host, rules);
  if (refused) return refused;
  if (url.protocol === 'http:') {
    const allowed = rules.plainHttp === 'always' || (rules.plainHttp === 'loopback' && isLoopbackName(host));
    if (!allowed) return refuse('scheme_not_allowed', 'it must use https');
  }
  return { url, host };
}

/** Null when a URL passes checkUrl, else the sentence (for callers that only report it). */
export function urlRefusal(raw: string, rules: TargetRules): string | null {
  const checked = checkUrl(raw, rules);
  return isRefusal(checked) ? checked.message : null;
}

/** A host quoted in a message, cut so that an over-long one does not flood the answer. */
function shown(host: string): string {
  return host.length > 80 ? `${host.slice(0, 77)}...` : host;
}
