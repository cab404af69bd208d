import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EmbeddingConfigController } from './embedding-config.controller';
import { EmbeddingConfigService } from './embedding-config.service';
import { EmbeddingConfig } from './entities/embedding-config.entity';
import { EmbeddingReindexRun } from './entities/embedding-reindex-run.entity';
import { ItemEmbedding } from './entities/item-embedding.entity';
import { EmbeddingQueries } from './embeddings.queries';
import { EmbedderService } from './providers/embedder.service';
import { LocalModelsService } from './providers/local-models.service';
import { ReindexService } from './reindex.service';
import { SemanticIndexService } from './semantic-index.service';
import { SemanticIndexer } from './semantic-indexer.service';
import { SemanticSourceQueries } from './semantic-sources.queries';
import { VectorCache } from './vector.cache';
import { VectorStore } from './vector.store';

/**
 * Embedding configuration, the semantic index of products and published
 * standards pages (kept fresh from their events), and reindexing.
 * SemanticIndexService is exported for search.
 */
@Module({
  imports: [TypeOrmModule.forFeature([EmbeddingConfig, ItemEmbedding, EmbeddingReindexRun])],
  controllers: [EmbeddingConfigController],
  providers: [
    VectorCache,
    VectorStore,
    LocalModelsService,
    EmbedderService,
    EmbeddingConfigService,
    SemanticIndexer,
    ReindexService,
    SemanticIndexService,
    EmbeddingQueries,
    SemanticSourceQueries,
  ],
  exports: [SemanticIndexService],
})
export class EmbeddingsModule {}
