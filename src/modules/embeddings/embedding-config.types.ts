import type { EmbeddingProvider, EmbeddingStatus } from './entities/embedding-config.entity';

import { configScopeOf, InstanceContext } from '../../database/instance-context';

/** The control-plane scope; an instance override is `instance:<id>`, kept in that instance's database (docs/decisions.md#instances). */
export const GLOBAL_SCOPE = 'global';

/** The scope of the work in progress: its instance's override, or the global configuration on `default`. */
export function currentScope(): string {
  return configScopeOf(InstanceContext.instanceId());
}

export function instanceIdOf(scope: string): string | null {
  return scope.startsWith('instance:') ? scope.slice('instance:'.length) : null;
}

/** The embedding configuration in force: the stored one, else the environment's. */
export interface EffectiveEmbeddingConfig {
  id: string | null;
  instanceId: string | null;
  source: 'database' | 'environment';
  provider: EmbeddingProvider;
  modelName: string;
  dimensions: number;
  apiKey: string | null;
  apiBaseUrl: string | null;
  isEnabled: boolean;
  indexVersion: string;
  status: EmbeddingStatus;
  updatedBy: string | null;
  createdAt: Date | null;
  updatedAt: Date | null;
}

/** What makes two vectors comparable: the same provider, model and size. */
export function fingerprintOf(
  config: Pick<EffectiveEmbeddingConfig, 'provider' | 'modelName' | 'dimensions'>,
): string {
  return `${config.provider}:${config.modelName}:${config.dimensions}`;
}

/** What the vector store records of the configuration with each vector it writes. */
export function producerOf(
  config: Pick<EffectiveEmbeddingConfig, 'provider' | 'modelName' | 'dimensions' | 'indexVersion'>,
): { dimensions: number; fingerprint: string; indexVersion: string } {
  return {
    dimensions: config.dimensions,
    fingerprint: fingerprintOf(config),
    indexVersion: config.indexVersion,
  };
}
