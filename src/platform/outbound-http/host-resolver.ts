import { promises as dns, type LookupAddress } from 'node:dns';

/**
 * Every address a host name resolves to. The outbound policy resolves
 * through this at save time and at connection time, so that both see the
 * same answers; tests give the application a table instead of DNS.
 */
export type HostResolver = (host: string) => Promise<LookupAddress[]>;

export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

/** The operating system's resolver (getaddrinfo: /etc/hosts, then DNS). */
export const systemResolver: HostResolver = (host) => dns.lookup(host, { all: true, verbatim: true });
