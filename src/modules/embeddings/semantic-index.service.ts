import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EmbeddingConfigService } from './embedding-config.service';
import { EffectiveEmbeddingConfig, producerOf } from './embedding-config.types';
import { EmbedderService } from './providers/embedder.service';
import { VectorStore } from './vector.store';

import type { SemanticItemType } from './entities/item-embedding.entity';

export type { SemanticItemType } from './entities/item-embedding.entity';

/** Where to look: among these types, in these spaces only. */
export interface NearestItemsQuery {
  types: SemanticItemType[];
  spaceIds: string[] | 'all';
  limit: number;
}

/** One nearest item; `score` is the cosine similarity, higher is better. */
export interface SemanticHit {
  type: SemanticItemType;
  id: string;
  spaceId: string;
  score: number;
}

/** What search needs of the semantic index. Permission filtering stays with the caller: it passes the spaces. */
@Injectable()
export class SemanticIndexService implements OnApplicationBootstrap {
  private readonly logger = new Logger(SemanticIndexService.name);

  constructor(
    private readonly configs: EmbeddingConfigService,
    private readonly embedder: EmbedderService,
    private readonly store: VectorStore,
  ) {}

  /**
   * The HNSW index for the configured size exists before the first search;
   * vectors stored before they named their producer are credited to the
   * configuration; without pgvector, the vectors start loading.
   */
  async onApplicationBootstrap(): Promise<void> {
    const producer = producerOf(await this.configs.effective());
    await this.store.ensureIndex(producer.dimensions);
    await this.store.adopt(producer);
    this.store.warm(producer);
  }

  /** The effective configuration, for a caller that reads it once and passes it on (nearestTo). */
  configuration(): Promise<EffectiveEmbeddingConfig> {
    return this.configs.effective();
  }

  /**
   * What of a configuration semantic answers depend on: whether it is on,
   * and the embedder and index version of the vectors it compares with.
   */
  static answersOf(config: EffectiveEmbeddingConfig): string {
    if (!config.isEnabled) return 'disabled';
    const { fingerprint, indexVersion } = producerOf(config);
    return `${fingerprint}:${indexVersion}`;
  }

  /** Embeds a search query with the effective configuration; null when embeddings are disabled or the provider fails (the caller falls back to keyword). */
  async embedQuery(text: string): Promise<number[] | null> {
    return this.embedWith(await this.configs.effective(), text);
  }

  /** Nearest items among the given spaces (never outside them), best first. */
  async nearest(query: NearestItemsQuery & { vector: number[] }): Promise<SemanticHit[]> {
    return this.nearestWith(await this.configs.effective(), query);
  }

  /**
   * The nearest items to a text under a configuration read by the caller
   * (`configuration()`), once for the whole search; null as for embedQuery, and when the vector store fails (search then falls back
   * to keyword, as for a failing provider).
   */
  async nearestTo(
    text: string,
    query: NearestItemsQuery,
    config: EffectiveEmbeddingConfig,
  ): Promise<SemanticHit[] | null> {
    const vector = await this.embedWith(config, text);
    if (!vector) return null;
    try {
      return await this.nearestWith(config, { ...query, vector });
    } catch (error) {
      this.logger.warn(
        `Nearest-neighbour query failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return null;
    }
  }

  private async embedWith(config: EffectiveEmbeddingConfig, text: string): Promise<number[] | null> {
    if (!config.isEnabled) return null;
    try {
      const [vector] = await this.embedder.embed(config, [text], 'query');
      return vector ?? null;
    } catch (error) {
      this.logger.warn(`Query embedding failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }

  private async nearestWith(
    config: EffectiveEmbeddingConfig,
    query: NearestItemsQuery & { vector: number[] },
  ): Promise<SemanticHit[]> {
    // A vector of another size (made before a change of dimensions) never meets the index.
    if (!config.isEnabled || query.vector.length !== config.dimensions) return [];
    // Vectors of another producer (an instance's, made before a change of the global configuration) never answer.
    const rows = await this.store.nearest({ ...query, ...producerOf(config) });
    return rows.map((row) => ({
      type: row.item_type,
      id: row.item_id,
      spaceId: row.space_id,
      score: row.score,
    }));
  }
}
