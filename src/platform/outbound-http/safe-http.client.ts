import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { addressRefusal, AddressPolicy, metadataRefusal, urlRefusal } from './address-policy';

export class OutboundRefused extends Error {
  override readonly name = 'OutboundRefused';
}

/** The peer did not answer within the request's time-out. */
export class OutboundTimeout extends Error {
  override readonly name = 'OutboundTimeout';
}

export interface OutboundResponse {
  status: number;
  durationMs: number;
  /** The first bytes of the body (`maxBodyBytes`, by default 2 KiB, enough for delivery logs). */
  bodySnippet: string;
  headers: IncomingMessage['headers'];
}

export interface OutboundRequest {
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  /** How much of the answer to keep (default 2 KiB). */
  maxBodyBytes?: number;
  /**
   * Provider endpoints (AI, embeddings): public HTTPS only, whatever
   * ALLOW_PRIVATE_NETWORK_TARGETS says, except hosts the operator trusts
   * (TRUSTED_AI_HOSTS), which may be reached over http and on any address.
   */
  providerRules?: { trustedHosts: readonly string[] };
  /**
   * Reuse connections (for a peer called often, such as an AI provider).
   * A reused connection's address was checked when it was opened.
   */
  keepAlive?: boolean;
}

const MAX_REDIRECTS = 3;
const SNIPPET_BYTES = 2048;
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * HTTP to addresses users give us (webhooks, web search), without letting
 * them reach our own network: every connection's resolved address is
 * checked when it is made (so DNS rebinding cannot slip through), and
 * redirects (307/308 only, at most three) are checked the same way.
 */
@Injectable()
export class SafeHttpClient implements OnModuleDestroy {
  private readonly policy: AddressPolicy;
  private readonly keepAlive = {
    'http:': new HttpAgent({ keepAlive: true, maxSockets: 64 }),
    'https:': new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
  };
  private static readonly STRICT: AddressPolicy = { allowPrivate: false };

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.policy = { allowPrivate: config.allowPrivateNetworkTargets };
  }

  /** Closes the reused connections, so that a stopping process does not wait on them. */
  onModuleDestroy(): void {
    this.keepAlive['http:'].destroy();
    this.keepAlive['https:'].destroy();
  }

  /** Null when the URL is acceptable to store, else why not (scheme, credentials, literal address). */
  refusal(url: string): string | null {
    return urlRefusal(url, this.policy);
  }

  /** Resolves the host now and refuses if any of its addresses is forbidden. */
  async checkResolvable(url: string): Promise<string | null> {
    const refused = this.refusal(url);
    if (refused) return refused;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    try {
      const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
        dnsLookup(host, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
      );
      for (const { address } of addresses) {
        const reason = addressRefusal(address, this.policy);
        if (reason) return `${host} resolves to ${reason}`;
      }
      return null;
    } catch {
      return `${host} does not resolve`;
    }
  }

  /**
   * Null when a provider base URL may be stored: public HTTPS, or any
   * http(s) URL on a trusted host other than a cloud metadata service.
   */
  providerRefusal(url: string, trustedHosts: readonly string[]): string | null {
    const policy = this.policyFor(url, { trustedHosts });
    const refused = policy === null ? trustedUrlRefusal(url) : urlRefusal(url, policy);
    // Names such as metadata.google.internal look public: refused by name, trusted or not.
    return refused ?? metadataRefusal(hostOf(url));
  }

  /** The address policy for a target; null means a trusted provider host (no address rules). */
  private policyFor(url: string, rules: OutboundRequest['providerRules']): AddressPolicy | null {
    if (!rules) return this.policy;
    let host: string;
    try {
      host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    } catch {
      return SafeHttpClient.STRICT;
    }
    return rules.trustedHosts.includes(host) ? null : SafeHttpClient.STRICT;
  }

  async send(url: string, request: OutboundRequest): Promise<OutboundResponse> {
    const started = process.hrtime.bigint();
    let target = url;
    for (let hop = 0; ; hop++) {
      const policy = this.policyFor(target, request.providerRules);
      let refused = policy ? urlRefusal(target, policy) : null;
      if (!refused && request.providerRules) refused = metadataRefusal(hostOf(target));
      if (refused) throw new OutboundRefused(`Refused ${target}: ${refused}.`);
      const response = await this.once(target, request, policy);
      const location = response.headers.location;
      if ((response.status === 307 || response.status === 308) && location && hop < MAX_REDIRECTS) {
        target = new URL(location, target).toString();
        continue;
      }
      return {
        status: response.status,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
        bodySnippet: response.snippet,
        headers: response.headers,
      };
    }
  }

  private once(
    url: string,
    request: OutboundRequest,
    policy: AddressPolicy | null,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; snippet: string }> {
    const parsed = new URL(url);
    const send = parsed.protocol === 'https:' ? httpsRequest : httpRequest;
    const maxBytes = request.maxBodyBytes ?? SNIPPET_BYTES;
    const lookup: LookupFunction = (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 4);
        const list = addresses as LookupAddress[];
        for (const { address } of list) {
          // A trusted host is reached on any address but a metadata service's.
          const reason = policy ? addressRefusal(address, policy) : metadataRefusal(address);
          if (reason) return callback(new OutboundRefused(`Refused ${hostname}: ${reason}.`), '', 4);
        }
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
        callback(null, list[0].address, list[0].family);
      });
    };
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        {
          method: request.method,
          headers: { 'user-agent': 'Verity-Webhooks/1.0', ...request.headers },
          lookup,
          ...(request.keepAlive ? { agent: this.keepAlive[parsed.protocol as 'http:' | 'https:'] } : {}),
          timeout: request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < maxBytes) chunks.push(chunk);
            size += chunk.length;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              snippet: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () =>
        req.destroy(new OutboundTimeout(`No answer within ${request.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`)),
      );
      req.on('error', reject);
      req.end(request.body);
    });
  }
}

function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, '');
}

/** A URL on a trusted host needs no address rules, only http(s) and no credentials. */
function trustedUrlRefusal(url: string): string | null {
  const parsed = new URL(url);
  if (!['http:', 'https:'].includes(parsed.protocol)) return 'it must use https';
  return parsed.username || parsed.password ? 'it must not contain credentials' : null;
}
