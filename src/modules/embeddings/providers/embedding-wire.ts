import type { EmbeddingProvider } from '../entities/embedding-config.entity';
import { isFiniteVector } from '../vector-math';

export type HostedProvider = Exclude<EmbeddingProvider, 'local'>;
/** What the texts are for: some providers embed documents and queries differently. */
export type EmbeddingPurpose = 'document' | 'query';

export interface EmbeddingTarget {
  provider: HostedProvider;
  model: string;
  dimensions: number;
  apiKey: string | null;
  /** Null means the provider's public endpoint. */
  baseUrl: string | null;
}

export interface EmbeddingWireRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export const AZURE_EMBEDDINGS_API_VERSION = '2024-10-21';
/** Texts per request each provider accepts at most; batches are cut to fit. */
export const PROVIDER_MAX_BATCH: Record<HostedProvider, number> = {
  openai: 2048,
  azure_openai: 2048,
  cohere: 96,
  voyage: 1000,
};
const DEFAULT_BASE: Record<HostedProvider, string | null> = {
  openai: 'https://api.openai.com/v1',
  // The resource endpoint (https://<resource>.openai.azure.com) is per customer.
  azure_openai: null,
  cohere: 'https://api.cohere.com',
  voyage: 'https://api.voyageai.com',
};

export function embeddingBaseUrl(target: Pick<EmbeddingTarget, 'provider' | 'baseUrl'>): string | null {
  return (target.baseUrl ?? DEFAULT_BASE[target.provider])?.replace(/\/+$/, '') ?? null;
}

/** The embeddings request on each vendor's own wire format. */
export function buildEmbeddingRequest(
  target: EmbeddingTarget,
  texts: string[],
  purpose: EmbeddingPurpose,
  base: string,
): EmbeddingWireRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  switch (target.provider) {
    case 'openai':
      if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
      return {
        url: `${base}/embeddings`,
        headers,
        body: JSON.stringify({
          model: target.model,
          input: texts,
          dimensions: target.dimensions,
          encoding_format: 'float',
        }),
      };
    case 'azure_openai':
      if (target.apiKey) headers['api-key'] = target.apiKey;
      return {
        url: `${base}/openai/deployments/${encodeURIComponent(target.model)}/embeddings?api-version=${AZURE_EMBEDDINGS_API_VERSION}`,
        headers,
        body: JSON.stringify({ input: texts, dimensions: target.dimensions, encoding_format: 'float' }),
      };
    case 'cohere':
      if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
      return {
        url: `${base}/v2/embed`,
        headers,
        body: JSON.stringify({
          model: target.model,
          texts,
          input_type: purpose === 'query' ? 'search_query' : 'search_document',
          embedding_types: ['float'],
          output_dimension: target.dimensions,
        }),
      };
    case 'voyage':
      if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
      return {
        url: `${base}/v1/embeddings`,
        headers,
        body: JSON.stringify({
          model: target.model,
          input: texts,
          input_type: purpose,
          output_dimension: target.dimensions,
        }),
      };
  }
}

/** The vectors of a success answer, in input order; throws when the body is not the provider's shape. */
export function parseEmbeddingAnswer(provider: HostedProvider, raw: string, count: number): number[][] {
  const body = JSON.parse(raw) as Record<string, unknown>;
  let vectors: unknown[];
  if (provider === 'cohere') {
    const embeddings = body.embeddings as { float?: unknown } | undefined;
    if (!embeddings || !Array.isArray(embeddings.float))
      throw new Error('the answer has no embeddings.float');
    vectors = embeddings.float;
  } else {
    if (!Array.isArray(body.data)) throw new Error('the answer has no data');
    const data = body.data as Array<{ index?: unknown; embedding?: unknown }>;
    vectors = new Array<unknown>(data.length);
    data.forEach((item, position) => {
      const index = typeof item?.index === 'number' ? item.index : position;
      vectors[index] = item?.embedding;
    });
  }
  if (vectors.length !== count) throw new Error(`${vectors.length} vectors came back for ${count} texts`);
  return vectors.map((vector, i) => {
    if (!isFiniteVector(vector)) throw new Error(`vector ${i} is not a list of numbers`);
    return vector;
  });
}

/** The provider's own error sentence, when its body carries one. */
export function embeddingErrorMessage(raw: string): string | null {
  try {
    const body = JSON.parse(raw) as {
      error?: { message?: unknown } | string;
      message?: unknown;
      detail?: unknown;
    };
    if (typeof body.error === 'string') return body.error.slice(0, 300);
    if (typeof body.error?.message === 'string') return body.error.message.slice(0, 300);
    // Cohere answers {message}, Voyage {detail}.
    if (typeof body.message === 'string') return body.message.slice(0, 300);
    if (typeof body.detail === 'string') return body.detail.slice(0, 300);
  } catch {
    // not JSON: no sentence to quote
  }
  return null;
}
