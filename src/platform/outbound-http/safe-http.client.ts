import type { LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { OutboundKind, OutboundPolicy } from './outbound-policy.service';
import { isRefusal, normalizeHost, TargetRules } from './outbound-url-policy';

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
  /** Whose rules the target follows (OutboundKind); `webhook` when left out. */
  kind?: OutboundKind;
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
 * HTTP to addresses users give us (webhooks, web search, AI providers, SSO),
 * without letting them reach our own network: every URL passes the outbound
 * policy, every connection's resolved addresses are checked when it is made
 * (so DNS rebinding cannot slip through), and redirects (307/308 only, at
 * most three) are checked the same way.
 */
@Injectable()
export class SafeHttpClient implements OnModuleDestroy {
  private readonly keepAlive = {
    'http:': new HttpAgent({ keepAlive: true, maxSockets: 64 }),
    'https:': new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
  };

  constructor(private readonly policy: OutboundPolicy) {}

  /** Closes the reused connections, so that a stopping process does not wait on them. */
  onModuleDestroy(): void {
    this.keepAlive['http:'].destroy();
    this.keepAlive['https:'].destroy();
  }

  async send(url: string, request: OutboundRequest): Promise<OutboundResponse> {
    const started = process.hrtime.bigint();
    let target = url;
    for (let hop = 0; ; hop++) {
      const checked = this.policy.checkUrlText(target, request.kind ?? 'webhook');
      if (isRefusal(checked)) throw new OutboundRefused(`Refused ${target}: ${checked.message}.`);
      const response = await this.once(checked.url, request, checked.rules);
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
    parsed: URL,
    request: OutboundRequest,
    rules: TargetRules,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; snippet: string }> {
    const send = parsed.protocol === 'https:' ? httpsRequest : httpRequest;
    const maxBytes = request.maxBodyBytes ?? SNIPPET_BYTES;
    // Through the policy's resolver, so that the addresses checked are the ones dialled.
    const lookup: LookupFunction = (hostname, options, callback) => {
      const host = normalizeHost(hostname);
      if (isRefusal(host))
        return callback(new OutboundRefused(`Refused ${hostname}: ${host.message}.`), '', 4);
      this.policy.resolveAllowed(host, rules).then(
        (found) => {
          if (isRefusal(found))
            return callback(new OutboundRefused(`Refused ${hostname}: ${found.message}.`), '', 4);
          const list = options.family ? found.filter((a) => a.family === options.family) : found;
          if (!list.length)
            return callback(new OutboundRefused(`${hostname} has no address of that family.`), '', 4);
          if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
          callback(null, list[0].address, list[0].family);
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 4),
      );
    };
    return new Promise((resolve, reject) => {
      const req = send(
        parsed,
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
