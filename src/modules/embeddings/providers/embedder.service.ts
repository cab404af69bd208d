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
import type { EffectiveEmbeddingConfig } from '../embedding-config.types';
import { l2Normalize } from '../vector-math';
import {
  buildEmbeddingRequest,
  EmbeddingPurpose,
  EmbeddingTarget,
  embeddingBaseUrl,
  embeddingErrorMessage,
  HostedProvider,
  parseEmbeddingAnswer,
  PROVIDER_MAX_BATCH,
} from './embedding-wire';
import { hashingEmbed } from './hashing-embedder';
import { isBuiltinModel, LocalModelsService, LocalRuntimeStatus } from './local-models.service';

/** An embedding call that produced no vectors; its message never contains the key. */
export class EmbeddingFailure extends Error {
  override readonly name = 'EmbeddingFailure';
}

/** Texts per local batch: hashing and table lookups are cheap, the bound is on memory. */
export const LOCAL_BATCH = 256;
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * Turns texts into unit vectors with the effective configuration: in process
 * for `local`, else over the provider's wire format through the SSRF-safe
 * client (public HTTPS, or a TRUSTED_AI_HOSTS host), in bounded batches with
 * bounded retries of 429/5xx answers.
 */
@Injectable()
export class EmbedderService {
  private hashingStatus: LocalRuntimeStatus = 'idle';
  private hashingError: string | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    private readonly http: SafeHttpClient,
    private readonly localModels: LocalModelsService,
    private readonly policy: OutboundPolicy,
  ) {}

  /**
   * The local provider's state in this process for this configuration: the
   * built-in hashing model is idle until its first use, then ready; a model
   * directory is warming while it loads (asking starts the load), then ready
   * or failed with the reason.
   */
  runtime(config: Pick<EffectiveEmbeddingConfig, 'provider' | 'modelName'>): {
    status: LocalRuntimeStatus;
    error: string | null;
  } {
    if (isBuiltinModel(config.modelName)) return { status: this.hashingStatus, error: this.hashingError };
    this.warm(config);
    return this.localModels.state(config.modelName);
  }

  /** Starts loading a local directory model in the background (a failed one again, with `retry`); nothing for other configurations. */
  warm(
    config: Pick<EffectiveEmbeddingConfig, 'provider' | 'modelName'>,
    options: { retry?: boolean } = {},
  ): void {
    if (config.provider !== 'local' || isBuiltinModel(config.modelName)) return;
    // The outcome is read through runtime(); a failure is recorded there, not thrown here.
    this.localModels.warm(config.modelName, options).catch(() => undefined);
  }

  /** Texts per provider call for this configuration. */
  batchSize(config: Pick<EffectiveEmbeddingConfig, 'provider'>): number {
    if (config.provider === 'local') return LOCAL_BATCH;
    return Math.min(this.app.embeddings.batchSize, PROVIDER_MAX_BATCH[config.provider]);
  }

  /** Null when a base URL may be stored: public HTTPS, or a host in TRUSTED_AI_HOSTS (save time, DNS included). */
  baseUrlRefusal(url: string): Promise<OutboundRefusal | null> {
    return this.policy.urlRefusal(url, 'ai_provider');
  }

  async embed(
    config: EffectiveEmbeddingConfig,
    texts: string[],
    purpose: EmbeddingPurpose,
  ): Promise<number[][]> {
    if (!texts.length) return [];
    if (config.provider === 'local') {
      return isBuiltinModel(config.modelName)
        ? this.embedHashing(texts, config.dimensions)
        : this.embedWithModel(texts, config);
    }
    const target: EmbeddingTarget = {
      provider: config.provider,
      model: config.modelName,
      dimensions: config.dimensions,
      apiKey: config.apiKey,
      baseUrl: config.apiBaseUrl,
    };
    const size = this.batchSize(config);
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += size) {
      vectors.push(...(await this.callProvider(target, texts.slice(start, start + size), purpose)));
    }
    return vectors;
  }

  private embedHashing(texts: string[], dimensions: number): number[][] {
    if (this.hashingStatus !== 'ready') this.hashingStatus = 'warming';
    try {
      const vectors = texts.map((text) => hashingEmbed(text, dimensions));
      this.hashingStatus = 'ready';
      this.hashingError = null;
      return vectors;
    } catch (error) {
      this.hashingStatus = 'failed';
      this.hashingError = error instanceof Error ? error.message : String(error);
      throw new EmbeddingFailure(`The local embedder failed: ${this.hashingError}`);
    }
  }

  /** Waits for the model while it loads; a model that failed to load fails the call as a failing hosted provider would. */
  private async embedWithModel(texts: string[], config: EffectiveEmbeddingConfig): Promise<number[][]> {
    let model: Awaited<ReturnType<LocalModelsService['warm']>>;
    try {
      model = await this.localModels.warm(config.modelName);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new EmbeddingFailure(`The local model "${config.modelName}" could not be loaded: ${reason}`);
    }
    if (model.dimensions !== config.dimensions) {
      throw new EmbeddingFailure(
        `The local model "${config.modelName}" makes vectors of ${model.dimensions} dimensions; the configuration says ${config.dimensions}.`,
      );
    }
    return texts.map((text) => model.embed(text));
  }

  private async callProvider(
    target: EmbeddingTarget,
    texts: string[],
    purpose: EmbeddingPurpose,
  ): Promise<number[][]> {
    const base = embeddingBaseUrl(target);
    if (!base) throw new EmbeddingFailure(`The ${target.provider} provider needs an api_base_url.`);
    // A URL stored under older rules is refused here by its text; the connection checks its addresses.
    const checked = this.policy.checkUrlText(base, 'ai_provider');
    if (isRefusal(checked))
      throw new EmbeddingFailure(`The provider base URL is refused: ${checked.message}.`);
    const wire = buildEmbeddingRequest(target, texts, purpose, base);
    const hide = (text: string) => (target.apiKey ? text.split(target.apiKey).join('***') : text);
    let reply: ProviderReply;
    try {
      reply = await postToProvider(
        this.http,
        {
          ...wire,
          userAgent: 'Verity-Embeddings/1.0',
          maxBodyBytes: MAX_ANSWER_BYTES,
        },
        this.app.ai,
      );
    } catch (error) {
      if (!(error instanceof ProviderUnreachable)) throw error;
      const message =
        error.kind === 'network' ? `The provider could not be reached: ${error.message}.` : error.message;
      throw new EmbeddingFailure(hide(message));
    }
    if (reply.status >= 200 && reply.status < 300) return this.read(target, reply.body, texts.length);
    const quoted = embeddingErrorMessage(reply.body);
    throw new EmbeddingFailure(`The provider answered ${reply.status}${quoted ? `: ${hide(quoted)}` : ''}.`);
  }

  private read(target: EmbeddingTarget, body: string, count: number): number[][] {
    let vectors: number[][];
    try {
      vectors = parseEmbeddingAnswer(target.provider as HostedProvider, body, count);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new EmbeddingFailure(`The provider's answer could not be read: ${reason}.`);
    }
    const wrong = vectors.find((v) => v.length !== target.dimensions);
    if (wrong) {
      throw new EmbeddingFailure(
        `The provider answered vectors of ${wrong.length} dimensions; the configuration says ${target.dimensions}.`,
      );
    }
    return vectors.map((v) => l2Normalize(v));
  }
}
