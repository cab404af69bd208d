import ipaddr from 'ipaddr.js';

/** The sealed client secret is bound to its provider and column, as is the SP private key. */
export const clientSecretContext = (id: string) => `sso_providers.oidc_client_secret:${id}`;
export const spKeyContext = (id: string) => `sso_providers.sp_private_key:${id}`;

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}
