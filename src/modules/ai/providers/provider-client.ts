import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app.config';
import {
  OutboundRefused,
  OutboundTimeout,
  SafeHttpClient,
} from '../../../platform/outbound-http/safe-http.client';
import type { StoredMessage } from '../entities/ai-log.entity';
import { redact } from '../guardrails';
import { retryDelayMs } from './retry';
import { baseUrlOf, buildRequest, errorMessage, parseAnswer, ProviderTarget, WireAnswer } from './wire';

export type ProviderFailureKind =
  'timeout' | 'http' | 'network' | 'refused' | 'invalid_answer' | 'not_configured';

/** A provider call that did not produce an answer; its message never contains the key. */
export class ProviderFailure extends Error {
  override readonly name = 'ProviderFailure';
  constructor(
    readonly kind: ProviderFailureKind,
    message: string,
    readonly httpStatus: number | null = null,
    readonly retries = 0,
    /** What the provider did answer, when the failure is ours to see in it (JSON asked for, text given): its tokens were spent. */
    readonly answered?: WireAnswer,
  ) {
    super(message);
  }
}

export interface ProviderAnswer extends WireAnswer {
  /** Time spent waiting on the provider, retries and their waits included. */
  providerMs: number;
  retries: number;
}

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The only code that talks to AI providers: over the SSRF-safe client, with time-outs and bounded retries. */
@Injectable()
export class ProviderClient {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly http: SafeHttpClient,
  ) {}

  /** Null when a base URL may be stored for a provider: public HTTPS, or a host in TRUSTED_AI_HOSTS. */
  baseUrlRefusal(url: string): string | null {
    return this.http.providerRefusal(url, this.config.ai.trustedHosts);
  }

  async call(target: ProviderTarget, messages: StoredMessage[]): Promise<ProviderAnswer> {
    const base = baseUrlOf(target);
    if (!base)
      throw new ProviderFailure('not_configured', `The ${target.provider} provider needs an api_base_url.`);
    const refused = this.baseUrlRefusal(base);
    if (refused) throw new ProviderFailure('refused', `The provider base URL is refused: ${refused}.`);
    const wire = buildRequest(target, messages, base);
    const { maxRetries, retryMaxWaitMs, requestTimeoutMs, trustedHosts } = this.config.ai;
    const started = performance.now();
    for (let retries = 0; ; retries++) {
      const canRetry = retries < maxRetries;
      let status: number;
      let body: string;
      let retryAfter: string | undefined;
      try {
        const res = await this.http.send(wire.url, {
          method: 'POST',
          headers: { ...wire.headers, 'user-agent': 'Verity-AI-Gateway/1.0' },
          body: wire.body,
          timeoutMs: requestTimeoutMs,
          maxBodyBytes: MAX_ANSWER_BYTES,
          providerRules: { trustedHosts },
          keepAlive: true,
        });
        status = res.status;
        body = res.bodySnippet;
        const header = res.headers['retry-after'];
        retryAfter = Array.isArray(header) ? header[0] : header;
      } catch (error) {
        if (error instanceof OutboundTimeout) {
          // Not retried: the provider may still be working (and billing) on it.
          throw new ProviderFailure(
            'timeout',
            `The provider did not answer within ${requestTimeoutMs} ms.`,
            null,
            retries,
          );
        }
        if (error instanceof OutboundRefused)
          throw new ProviderFailure('refused', error.message, null, retries);
        if (canRetry) {
          await this.wait(retryDelayMs(retries + 1, undefined, retryMaxWaitMs));
          continue;
        }
        const reason = error instanceof Error ? error.message : String(error);
        throw new ProviderFailure(
          'network',
          `The provider could not be reached: ${redact(reason).text}.`,
          null,
          retries,
        );
      }
      if (status >= 200 && status < 300) {
        try {
          return { ...parseAnswer(target.provider, body), providerMs: performance.now() - started, retries };
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new ProviderFailure(
            'invalid_answer',
            `The provider's answer could not be read: ${reason}.`,
            status,
            retries,
          );
        }
      }
      if ((status === 429 || status >= 500) && canRetry) {
        await this.wait(retryDelayMs(retries + 1, retryAfter, retryMaxWaitMs));
        continue;
      }
      const quoted = errorMessage(body);
      throw new ProviderFailure(
        'http',
        `The provider answered ${status}${quoted ? `: ${redact(quoted).text}` : ''}.`,
        status,
        retries,
      );
    }
  }

  private wait(ms: number): Promise<void> {
    return new Promise((done) => setTimeout(done, ms));
  }
}
