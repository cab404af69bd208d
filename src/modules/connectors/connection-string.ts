import type { AddressPolicy } from '../../platform/outbound-http/address-policy';
import {
  checkHost,
  isRefusal,
  MAX_URL_LENGTH,
  OutboundReason,
} from '../../platform/outbound-http/outbound-url-policy';

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
 * password). The host is normalised and checked by the outbound policy's
 * text rules here (with the reason code); what a name resolves to is
 * checked on saving and again at connect time.
 */
export function parseConnectionString(
  raw: string,
  policy: AddressPolicy,
): { target: PostgresTarget } | { error: string; reason?: OutboundReason } {
  if (raw.length > MAX_URL_LENGTH) {
    return {
      error: `connection_string is longer than ${MAX_URL_LENGTH} characters.`,
      reason: 'url_too_long',
    };
  }
  if (raw.includes('#'))
    return { error: 'connection_string must not have a fragment.', reason: 'fragment_not_allowed' };
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
  const checked = checkHost(host, { allowPrivate: policy.allowPrivate, plainHttp: 'never' });
  if (isRefusal(checked)) {
    return { error: `connection_string host is not allowed: ${checked.message}.`, reason: checked.reason };
  }
  const password = decodeURIComponent(url.password);
  return { target: { host: checked, port, database, user, password, sslmode } };
}
