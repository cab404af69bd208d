import { retryDelayMs } from './retry';
import { OutboundRefused, OutboundTimeout, SafeHttpClient } from './safe-http.client';

export interface ProviderPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  userAgent: string;
  maxBodyBytes: number;
}

/** The outbound AI settings (AI_REQUEST_TIMEOUT_MS, AI_MAX_RETRIES, AI_RETRY_MAX_WAIT_MS); TRUSTED_AI_HOSTS is the policy's. */
export interface ProviderLimits {
  requestTimeoutMs: number;
  maxRetries: number;
  retryMaxWaitMs: number;
}

/** What a provider answered after any retries: a success, or a status not worth retrying (or retried out). */
export interface ProviderReply {
  status: number;
  body: string;
  retries: number;
}

/** A provider request that got no HTTP answer: refused by the address rules, timed out, or unreachable. */
export class ProviderUnreachable extends Error {
  override readonly name = 'ProviderUnreachable';
  constructor(
    readonly kind: 'refused' | 'timeout' | 'network',
    message: string,
    readonly retries: number,
  ) {
    super(message);
  }
}

const wait = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/**
 * POSTs to an AI or embedding provider over the SSRF-safe client (public
 * HTTPS, or a TRUSTED_AI_HOSTS host) on a kept-alive connection, retrying a
 * connection failure, a 429 or a 5xx with exponential backoff (a provider's
 * Retry-After honoured, capped). A time-out is not retried: the provider may
 * still be working, and billing, on it.
 */
export async function postToProvider(
  http: SafeHttpClient,
  post: ProviderPost,
  limits: ProviderLimits,
): Promise<ProviderReply> {
  for (let retries = 0; ; retries++) {
    const canRetry = retries < limits.maxRetries;
    let reply: { status: number; body: string; retryAfter: string | undefined };
    try {
      const res = await http.send(post.url, {
        method: 'POST',
        headers: { ...post.headers, 'user-agent': post.userAgent },
        body: post.body,
        timeoutMs: limits.requestTimeoutMs,
        maxBodyBytes: post.maxBodyBytes,
        kind: 'ai_provider',
        keepAlive: true,
      });
      const header = res.headers['retry-after'];
      reply = {
        status: res.status,
        body: res.bodySnippet,
        retryAfter: Array.isArray(header) ? header[0] : header,
      };
    } catch (error) {
      if (error instanceof OutboundTimeout) {
        throw new ProviderUnreachable(
          'timeout',
          `The provider did not answer within ${limits.requestTimeoutMs} ms.`,
          retries,
        );
      }
      if (error instanceof OutboundRefused) throw new ProviderUnreachable('refused', error.message, retries);
      if (canRetry) {
        await wait(retryDelayMs(retries + 1, undefined, limits.retryMaxWaitMs));
        continue;
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new ProviderUnreachable('network', reason, retries);
    }
    if ((reply.status === 429 || reply.status >= 500) && canRetry) {
      await wait(retryDelayMs(retries + 1, reply.retryAfter, limits.retryMaxWaitMs));
      continue;
    }
    return { status: reply.status, body: reply.body, retries };
  }
}
