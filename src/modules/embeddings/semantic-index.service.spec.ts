import type { EffectiveEmbeddingConfig } from './embedding-config.types';
import { SemanticIndexService } from './semantic-index.service';

describe('SemanticIndexService.answersOf (what cached semantic answers are keyed by)', () => {
  const config: EffectiveEmbeddingConfig = {
    id: null,
    instanceId: null,
    source: 'environment',
    provider: 'local',
    modelName: 'hashing-ngrams-v1',
    dimensions: 384,
    apiKey: null,
    apiBaseUrl: null,
    isEnabled: true,
    indexVersion: 'v1',
    status: 'active',
    updatedBy: null,
    createdAt: null,
    updatedAt: null,
  };

  it('names the embedder and the index version', () => {
    expect(SemanticIndexService.answersOf(config)).toBe('local:hashing-ngrams-v1:384:v1');
  });

  it.each([
    ['provider', { provider: 'openai' }],
    ['model', { modelName: 'other-model' }],
    ['dimensions', { dimensions: 256 }],
    ['index version', { indexVersion: 'v2' }],
    ['switch', { isEnabled: false }],
  ] as const)('changes with the %s', (_what, change) => {
    expect(SemanticIndexService.answersOf({ ...config, ...change })).not.toBe(
      SemanticIndexService.answersOf(config),
    );
  });

  it('does not change with the key, base URL or status (they change no vector)', () => {
    expect(
      SemanticIndexService.answersOf({
        ...config,
        apiKey: 'sk-other',
        apiBaseUrl: 'https://embeddings.example.com',
        status: 'pending_reindex',
      }),
    ).toBe(SemanticIndexService.answersOf(config));
  });
});
