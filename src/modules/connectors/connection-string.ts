import ipaddr from 'ipaddr.js';
import { addressRefusal, AddressPolicy } from '../../platform/outbound-http/address-policy';

/** A PostgreSQL connection string taken apart; the password never leaves this object. */
export interface PostgresTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  /** `disable` (default), `require` (encrypted, certificate not verified), `verify-full`. */
  sslmode: 'disable' | 'require' | 'verify-full';
}

const SSL_MODES: Record<string, PostgresTarget['sslmode']> = {
  disable: 'disable',
  allow: 'disable',
  prefer: 'disable',
  require: 'require',
  'verify-ca': 'verify-full',
  'verify-full': 'verify-full',
};

/**
 * Parses `postgres://user:password@host:port/database?sslmode=...`. Answers
 * the target, or the reason it is not acceptable (never quoting the
 * password). Literal addresses and local names are checked against the
 * outbound address policy here; names are resolved and checked again at
 * connect time.
 */
export function parseConnectionString(
  raw: string,
  policy: AddressPolicy,
): { target: PostgresTarget } | { error: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: 'connection_string must be a postgres:// URL.' };
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    return { error: 'connection_string must be a postgres:// or postgresql:// URL.' };
  }
  const host = decodeURIComponent(url.hostname).replace(/^\[|\]$/g, '');
  if (!host) return { error: 'connection_string must name a host.' };
  if (host.startsWith('/')) return { error: 'connection_string must name a network host, not a socket.' };
  const port = url.port ? Number(url.port) : 5432;
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) return { error: 'connection_string must name a database.' };
  const user = decodeURIComponent(url.username);
  if (!user) return { error: 'connection_string must name a user.' };
  for (const key of url.searchParams.keys()) {
    if (key !== 'sslmode' && key !== 'application_name' && key !== 'connect_timeout') {
      return { error: `connection_string parameter "${key}" is not supported.` };
    }
  }
  const sslParam = url.searchParams.get('sslmode') ?? 'disable';
  const sslmode = SSL_MODES[sslParam];
  if (!sslmode) return { error: `connection_string sslmode "${sslParam}" is not supported.` };
  const refusal = hostRefusal(host, policy);
  if (refusal) return { error: `connection_string host is not allowed: ${refusal}.` };
  return { target: { host, port, database, user, password: decodeURIComponent(url.password), sslmode } };
}

/** Null when the host may be contacted as written (an address or a public-looking name). */
export function hostRefusal(host: string, policy: AddressPolicy): string | null {
  if (ipaddr.isValid(host)) return addressRefusal(host, policy);
  if (!/^[A-Za-z0-9.-]+$/.test(host)) return `${host} is not a valid host name`;
  if (
    !policy.allowPrivate &&
    (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || !host.includes('.'))
  ) {
    return `${host} is not a public host name`;
  }
  return null;
}
