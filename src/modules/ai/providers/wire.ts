import type { AiProvider } from '../entities/ai-config.entity';
import type { StoredMessage } from '../entities/ai-log.entity';

/** Everything a provider call needs, resolved from a route's profile or the provider configuration. */
export interface ProviderTarget {
  provider: AiProvider;
  model: string;
  /** Null when the configuration has no key (a self-hosted server may not need one). */
  apiKey: string | null;
  /** Null means the provider's public endpoint. */
  baseUrl: string | null;
  temperature: number | null;
  maxTokens: number | null;
  /** The routing profile, or null for the provider configuration itself. */
  profileId: string | null;
}

export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WireAnswer {
  text: string;
  inputTokens: number;
  outputTokens: number;
}

export const AZURE_API_VERSION = '2024-10-21';
export const ANTHROPIC_VERSION = '2023-06-01';
const DEFAULT_BASE: Record<AiProvider, string | null> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  // These two have no public endpoint: the configuration must name one.
  azure_openai: null,
  openai_compatible: null,
};
/** Anthropic requires max_tokens; the others default to the model's own limit. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

export function baseUrlOf(target: Pick<ProviderTarget, 'provider' | 'baseUrl'>): string | null {
  return (target.baseUrl ?? DEFAULT_BASE[target.provider])?.replace(/\/+$/, '') ?? null;
}

/** The HTTP request for a chat completion on the target's wire format. */
export function buildRequest(target: ProviderTarget, messages: StoredMessage[], base: string): WireRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (target.provider === 'anthropic') {
    if (target.apiKey) headers['x-api-key'] = target.apiKey;
    headers['anthropic-version'] = ANTHROPIC_VERSION;
    const system = messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    return {
      url: `${base}/v1/messages`,
      headers,
      body: JSON.stringify({
        model: target.model,
        max_tokens: target.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
        ...(system ? { system } : {}),
        ...(target.temperature !== null ? { temperature: target.temperature } : {}),
        messages: messages
          .filter((m) => m.role !== 'system')
          .map((m) => ({ role: m.role, content: m.content })),
      }),
    };
  }
  const body = JSON.stringify({
    model: target.model,
    messages,
    ...(target.temperature !== null ? { temperature: target.temperature } : {}),
    ...(target.maxTokens !== null ? { max_tokens: target.maxTokens } : {}),
  });
  if (target.provider === 'azure_openai') {
    if (target.apiKey) headers['api-key'] = target.apiKey;
    const deployment = encodeURIComponent(target.model);
    return {
      url: `${base}/openai/deployments/${deployment}/chat/completions?api-version=${AZURE_API_VERSION}`,
      headers,
      body,
    };
  }
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  return { url: `${base}/chat/completions`, headers, body };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;
}

/** The answer's text and token usage; throws when the body is not the provider's success shape. */
export function parseAnswer(provider: AiProvider, raw: string): WireAnswer {
  const body = JSON.parse(raw) as Record<string, unknown>;
  if (provider === 'anthropic') {
    const content = body.content;
    if (!Array.isArray(content)) throw new Error('the answer has no content');
    const text = content
      .filter((part: { type?: string }) => part?.type === 'text')
      .map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : ''))
      .join('');
    const usage = (body.usage ?? {}) as Record<string, unknown>;
    return { text, inputTokens: count(usage.input_tokens), outputTokens: count(usage.output_tokens) };
  }
  const choices = body.choices;
  if (!Array.isArray(choices) || choices.length === 0) throw new Error('the answer has no choices');
  const message = (choices[0] as { message?: { content?: unknown } }).message;
  const text = typeof message?.content === 'string' ? message.content : '';
  const usage = (body.usage ?? {}) as Record<string, unknown>;
  return { text, inputTokens: count(usage.prompt_tokens), outputTokens: count(usage.completion_tokens) };
}

/** The provider's own error sentence, when its body carries one (both formats use `error.message`). */
export function errorMessage(raw: string): string | null {
  try {
    const body = JSON.parse(raw) as { error?: { message?: unknown } | string };
    if (typeof body.error === 'string') return body.error.slice(0, 300);
    if (typeof body.error?.message === 'string') return body.error.message.slice(0, 300);
  } catch {
    // not JSON: no sentence to quote
  }
  return null;
}
