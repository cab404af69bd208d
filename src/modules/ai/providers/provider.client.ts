import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app.config';
import {
  postToProvider,
  ProviderReply,
  ProviderUnreachable,
} from '../../../platform/outbound-http/provider-post';
import { OutboundPolicy } from '../../../platform/outbound-http/outbound-policy.service';
import { isRefusal, OutboundRefusal } from '../../../platform/outbound-http/outbound-url-policy';
import { SafeHttpClient } from '../../../platform/outbound-http/safe-http.client';
import type { StoredMessage } from '../entities/ai-log.entity';
import { redact } from '../guardrails';
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
    private readonly policy: OutboundPolicy,
  ) {}

  /** Null when a base URL may be stored for a provider: public HTTPS, or a host in TRUSTED_AI_HOSTS (save time, DNS included). */
  baseUrlRefusal(url: string): Promise<OutboundRefusal | null> {
    return this.policy.urlRefusal(url, 'ai_provider');
  }

  async call(target: ProviderTarget, messages: StoredMessage[]): Promise<ProviderAnswer> {
    const base = baseUrlOf(target);
    if (!base)
      throw new ProviderFailure('not_configured', `The ${target.provider} provider needs an api_base_url.`);
    // A URL stored under older rules is refused here by its text; the connection checks its addresses.
    const checked = this.policy.checkUrlText(base, 'ai_provider');
    if (isRefusal(checked)) {
      throw new ProviderFailure('refused', `The provider base URL is refused: ${checked.message}.`);
    }
    const wire = buildRequest(target, messages, base);
    const started = performance.now();
    let reply: ProviderReply;
    try {
      reply = await postToProvider(
        this.http,
        {
          ...wire,
          userAgent: 'Verity-AI-Gateway/1.0',
          maxBodyBytes: MAX_ANSWER_BYTES,
        },
        this.config.ai,
      );
    } catch (error) {
      if (!(error instanceof ProviderUnreachable)) throw error;
      const message =
        error.kind === 'network'
          ? `The provider could not be reached: ${redact(error.message).text}.`
          : error.message;
      throw new ProviderFailure(error.kind, message, null, error.retries);
    }
    const { status, body, retries } = reply;
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
    const quoted = errorMessage(body);
    throw new ProviderFailure(
      'http',
      `The provider answered ${status}${quoted ? `: ${redact(quoted).text}` : ''}.`,
      status,
      retries,
    );
  }
}
