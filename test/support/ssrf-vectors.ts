import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { HostResolver } from '../../src/platform/outbound-http/host-resolver';
import type { OutboundReason } from '../../src/platform/outbound-http/outbound-url-policy';

/** One classic SSRF vector, as every outbound URL or host field must refuse it. */
export interface SsrfVector {
  url: string;
  /** The vector's host as a connector host field takes it; absent where the vector is about URL syntax only. */
  host?: string;
  /** The refusal under the strictest rules (no ALLOW_PRIVATE_NETWORK_TARGETS, no trusted host). */
  reason: OutboundReason;
  /** Refused whatever the settings: cloud metadata, and what is never a target. */
  always?: boolean;
}

const LONG_HOST = `${'a'.repeat(60)}.`.repeat(5) + 'example.com'; // 316 characters
const LONG_LABEL = `${'a'.repeat(64)}.example.com`;

export const SSRF_VECTORS: SsrfVector[] = [
  // Loopback in every IPv4 notation the WHATWG parser (and inet_aton) accepts.
  { url: 'https://127.0.0.1/x', host: '127.0.0.1', reason: 'private_address' },
  { url: 'https://2130706433/x', host: '2130706433', reason: 'private_address' },
  { url: 'https://0x7f000001/x', host: '0x7f000001', reason: 'private_address' },
  { url: 'https://0x7f.1/x', host: '0x7f.1', reason: 'private_address' },
  { url: 'https://017700000001/x', host: '017700000001', reason: 'private_address' },
  { url: 'https://0177.0.0.1/x', host: '0177.0.0.1', reason: 'private_address' },
  { url: 'https://127.1/x', host: '127.1', reason: 'private_address' },
  { url: 'https://127.0.0.1./x', host: '127.0.0.1.', reason: 'private_address' },
  { url: 'https://１２７.０.０.１/x', host: '１２７.０.０.１', reason: 'private_address' },
  // IPv6 loopback and IPv4 inside IPv6.
  { url: 'https://[::1]/x', host: '[::1]', reason: 'private_address' },
  { url: 'https://[0:0:0:0:0:0:0:1]/x', host: '[0:0:0:0:0:0:0:1]', reason: 'private_address' },
  { url: 'https://[::ffff:127.0.0.1]/x', host: '[::ffff:127.0.0.1]', reason: 'private_address' },
  { url: 'https://[0:0:0:0:0:ffff:7f00:1]/x', host: '[0:0:0:0:0:ffff:7f00:1]', reason: 'private_address' },
  { url: 'https://[::127.0.0.1]/x', host: '[::127.0.0.1]', reason: 'blocked_address', always: true },
  { url: 'https://[::7f00:1]/x', host: '[::7f00:1]', reason: 'blocked_address', always: true },
  { url: 'https://[64:ff9b::7f00:1]/x', host: '[64:ff9b::7f00:1]', reason: 'blocked_address', always: true },
  { url: 'https://[2002:7f00:1::]/x', host: '[2002:7f00:1::]', reason: 'blocked_address', always: true },
  // Unspecified addresses (reach this machine on Linux).
  { url: 'https://0.0.0.0/x', host: '0.0.0.0', reason: 'blocked_address', always: true },
  { url: 'https://0/x', host: '0', reason: 'blocked_address', always: true },
  { url: 'https://[::]/x', host: '[::]', reason: 'blocked_address', always: true },
  // Private networks.
  { url: 'https://10.0.0.1/x', host: '10.0.0.1', reason: 'private_address' },
  { url: 'https://172.16.0.1/x', host: '172.16.0.1', reason: 'private_address' },
  { url: 'https://192.168.0.1/x', host: '192.168.0.1', reason: 'private_address' },
  { url: 'https://100.64.0.1/x', host: '100.64.0.1', reason: 'private_address' },
  { url: 'https://[fc00::1]/x', host: '[fc00::1]', reason: 'private_address' },
  // Local names, whatever their spelling.
  { url: 'https://localhost/x', host: 'localhost', reason: 'local_host_name' },
  { url: 'https://LOCALHOST/x', host: 'LOCALHOST', reason: 'local_host_name' },
  { url: 'https://localhost./x', host: 'localhost.', reason: 'local_host_name' },
  { url: 'https://localhost.localdomain/x', host: 'localhost.localdomain', reason: 'local_host_name' },
  { url: 'https://api.localhost/x', host: 'api.localhost', reason: 'local_host_name' },
  { url: 'https://printer.local/x', host: 'printer.local', reason: 'local_host_name' },
  { url: 'https://intranet/x', host: 'intranet', reason: 'local_host_name' },
  { url: 'https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/x', host: 'ⓛⓞⓒⓐⓛⓗⓞⓢⓣ', reason: 'local_host_name' },
  { url: 'https://locаlhost/x', host: 'locаlhost', reason: 'local_host_name' }, // Cyrillic a: xn--, one label
  // Public-looking names that resolve to refused addresses (resolved through SSRF_TEST_RESOLVER).
  { url: 'https://127.0.0.1.nip.io/x', host: '127.0.0.1.nip.io', reason: 'private_address' },
  { url: 'https://10.0.0.1.sslip.io/x', host: '10.0.0.1.sslip.io', reason: 'private_address' },
  {
    url: 'https://v6-loopback.attacker.example/x',
    host: 'v6-loopback.attacker.example',
    reason: 'private_address',
  },
  {
    url: 'https://meta.attacker.example/x',
    host: 'meta.attacker.example',
    reason: 'metadata_host',
    always: true,
  },
  // Cloud metadata services, by address and by name.
  {
    url: 'https://169.254.169.254/latest/meta-data/',
    host: '169.254.169.254',
    reason: 'metadata_host',
    always: true,
  },
  {
    url: 'https://[::ffff:169.254.169.254]/x',
    host: '[::ffff:169.254.169.254]',
    reason: 'metadata_host',
    always: true,
  },
  { url: 'https://[fe80::1]/x', host: '[fe80::1]', reason: 'metadata_host', always: true },
  { url: 'https://[fd00:ec2::254]/x', host: '[fd00:ec2::254]', reason: 'metadata_host', always: true },
  { url: 'https://100.100.100.200/x', host: '100.100.100.200', reason: 'metadata_host', always: true },
  {
    url: 'https://metadata.google.internal/computeMetadata/v1/',
    host: 'metadata.google.internal',
    reason: 'metadata_host',
    always: true,
  },
  {
    url: 'https://METADATA.Google.Internal./x',
    host: 'METADATA.Google.Internal.',
    reason: 'metadata_host',
    always: true,
  },
  { url: 'https://instance-data/x', host: 'instance-data', reason: 'metadata_host', always: true },
  // Over-long hosts and labels.
  { url: `https://${LONG_HOST}/x`, host: LONG_HOST, reason: 'host_too_long', always: true },
  { url: `https://${LONG_LABEL}/x`, host: LONG_LABEL, reason: 'host_too_long', always: true },
  // URL syntax: credentials, fragments, schemes.
  { url: 'http://good@127.0.0.1/x', reason: 'userinfo_not_allowed', always: true },
  { url: 'https://user:pw@hooks.example.com/x', reason: 'userinfo_not_allowed', always: true },
  { url: 'https://hooks.example.com@127.0.0.1/x', reason: 'userinfo_not_allowed', always: true },
  { url: 'https://@hooks.example.com/x', reason: 'userinfo_not_allowed', always: true },
  { url: 'https://hooks.example.com/x#fragment', reason: 'fragment_not_allowed', always: true },
  { url: 'https://hooks.example.com/x#', reason: 'fragment_not_allowed', always: true },
  { url: 'file:///etc/passwd', reason: 'scheme_not_allowed', always: true },
  { url: 'gopher://127.0.0.1:70/_x', reason: 'scheme_not_allowed', always: true },
  { url: 'ftp://hooks.example.com/x', reason: 'scheme_not_allowed', always: true },
  { url: 'dict://127.0.0.1:11211/x', reason: 'scheme_not_allowed', always: true },
  { url: 'javascript:alert(1)', reason: 'scheme_not_allowed', always: true },
  { url: 'http://hooks.example.com/x', reason: 'scheme_not_allowed' },
  { url: 'not a url', reason: 'invalid_url', always: true },
  { url: 'https://exa mple.com/x', reason: 'invalid_url', always: true },
];

/** Names the vectors resolve, as public wildcard DNS services (nip.io, sslip.io) or a hostile zone would. */
const TEST_ZONE: Record<string, string[]> = {
  '127.0.0.1.nip.io': ['127.0.0.1'],
  '10.0.0.1.sslip.io': ['93.184.215.14', '10.0.0.1'],
  'v6-loopback.attacker.example': ['::1'],
  'meta.attacker.example': ['169.254.169.254'],
  'public.verity.test': ['93.184.215.14'],
};

/** A resolver for the test zone; every other name does not resolve (the machine has no DNS). */
export const SSRF_TEST_RESOLVER: HostResolver = (host) => {
  const found = TEST_ZONE[host];
  if (!found)
    return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
  return Promise.resolve(found.map((address): LookupAddress => ({ address, family: isIP(address) })));
};
