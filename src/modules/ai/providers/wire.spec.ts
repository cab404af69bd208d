import { retryDelayMs } from '../../../platform/outbound-http/retry';
import { buildRequest, errorMessage, parseAnswer, ProviderTarget } from './wire';

const target = (fields: Partial<ProviderTarget>): ProviderTarget => ({
  provider: 'openai',
  model: 'gpt-4o-mini',
  apiKey: 'k',
  baseUrl: null,
  temperature: null,
  maxTokens: null,
  profileId: null,
  ...fields,
});
const messages = [
  { role: 'system' as const, content: 'be brief' },
  { role: 'user' as const, content: 'hello' },
];

describe('buildRequest', () => {
  it('builds OpenAI chat completions with a bearer key', () => {
    const r = buildRequest(target({ maxTokens: 10 }), messages, 'https://api.openai.com/v1');
    expect(r.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(r.headers.authorization).toBe('Bearer k');
    expect(JSON.parse(r.body)).toEqual({ model: 'gpt-4o-mini', messages, max_tokens: 10 });
  });

  it('builds Azure deployments with api-key and api-version', () => {
    const r = buildRequest(
      target({ provider: 'azure_openai', model: 'dep 1' }),
      messages,
      'https://x.openai.azure.com',
    );
    expect(r.url).toBe(
      'https://x.openai.azure.com/openai/deployments/dep%201/chat/completions?api-version=2024-10-21',
    );
    expect(r.headers['api-key']).toBe('k');
    expect(r.headers.authorization).toBeUndefined();
  });

  it('builds Anthropic messages with the system prompt apart and a max_tokens', () => {
    const r = buildRequest(
      target({ provider: 'anthropic', temperature: 0 }),
      messages,
      'https://api.anthropic.com',
    );
    expect(r.url).toBe('https://api.anthropic.com/v1/messages');
    expect(r.headers['x-api-key']).toBe('k');
    expect(r.headers['anthropic-version']).toBe('2023-06-01');
    expect(JSON.parse(r.body)).toEqual({
      model: 'gpt-4o-mini',
      max_tokens: 1024,
      system: 'be brief',
      temperature: 0,
      messages: [{ role: 'user', content: 'hello' }],
    });
  });
});

describe('parseAnswer', () => {
  it('reads OpenAI and Anthropic answers and usage', () => {
    expect(
      parseAnswer(
        'openai',
        JSON.stringify({
          choices: [{ message: { content: 'hi' } }],
          usage: { prompt_tokens: 3, completion_tokens: 1 },
        }),
      ),
    ).toEqual({ text: 'hi', inputTokens: 3, outputTokens: 1 });
    expect(
      parseAnswer(
        'anthropic',
        JSON.stringify({
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
          usage: { input_tokens: 5, output_tokens: 2 },
        }),
      ),
    ).toEqual({ text: 'ab', inputTokens: 5, outputTokens: 2 });
  });

  it('rejects bodies of another shape', () => {
    expect(() => parseAnswer('openai', '{}')).toThrow(/choices/);
    expect(() => parseAnswer('anthropic', 'not json')).toThrow();
  });

  it('quotes the provider error sentence', () => {
    expect(errorMessage('{"error":{"message":"bad key"}}')).toBe('bad key');
    expect(errorMessage('<html>')).toBeNull();
  });
});

describe('retryDelayMs', () => {
  it('backs off exponentially, honours Retry-After seconds or dates, and caps the wait', () => {
    expect(retryDelayMs(1, undefined, 5000)).toBe(250);
    expect(retryDelayMs(3, undefined, 5000)).toBe(1000);
    expect(retryDelayMs(1, '2', 5000)).toBe(2000);
    expect(retryDelayMs(1, '120', 5000)).toBe(5000);
    const now = Date.parse('2026-11-25T10:00:00Z');
    expect(retryDelayMs(1, 'Wed, 25 Nov 2026 10:00:03 GMT', 5000, now)).toBe(3000);
  });
});
