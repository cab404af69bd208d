import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EmbeddingConfigService } from './embedding-config.service';
import { EmbedderService } from './providers/embedder.service';
import { VectorStore } from './vector-store';

export type SemanticItemType = 'product' | 'standard_page';

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

  /** The HNSW index for the configured size exists before the first search (pgvector only). */
  async onApplicationBootstrap(): Promise<void> {
    await this.store.ensureIndex((await this.configs.effective()).dimensions);
  }

  /** Embeds a search query with the effective configuration; null when embeddings are disabled or the provider fails (the caller falls back to keyword). */
  async embedQuery(text: string): Promise<number[] | null> {
    const config = await this.configs.effective();
    if (!config.isEnabled) return null;
    try {
      const [vector] = await this.embedder.embed(config, [text], 'query');
      return vector ?? null;
    } catch (error) {
      this.logger.warn(`Query embedding failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }

  /** Nearest items among the given spaces (never outside them), best first. */
  async nearest(query: {
    vector: number[];
    types: SemanticItemType[];
    spaceIds: string[] | 'all';
    limit: number;
  }): Promise<SemanticHit[]> {
    const config = await this.configs.effective();
    // A vector of another size (made before a change of dimensions) never meets the index.
    if (!config.isEnabled || query.vector.length !== config.dimensions) return [];
    const rows = await this.store.nearest({ ...query, dimensions: config.dimensions });
    return rows.map((row) => ({
      type: row.item_type,
      id: row.item_id,
      spaceId: row.space_id,
      score: row.score,
    }));
  }
}
