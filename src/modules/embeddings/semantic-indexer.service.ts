import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { TransactionRunner } from '../../database/transaction.runner';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { OutboxDispatcher } from '../../platform/outbox/outbox.dispatcher';
import { EmbeddingConfigService } from './embedding-config.service';
import { EffectiveEmbeddingConfig, producerOf } from './embedding-config.types';
import { EmbedderService } from './providers/embedder.service';
import { contentHash, SemanticSourceQueries, SourceItem } from './semantic-sources.queries';
import { SemanticItemType, StoredVector, VectorStore } from './vector.store';

export const REFRESH_JOB = 'embeddings.refresh';

/** The vectors a batch needs written, and how many items were unchanged. */
export interface PreparedBatch {
  vectors: StoredVector[];
  unchanged: number;
}

/**
 * Keeps the semantic index fresh without a manual reindex: product and
 * standards-page events queue a refresh of that item (a job, so provider
 * calls never run inside the event's transaction); deletions and
 * unpublishing remove the vector at once.
 */
@Injectable()
export class SemanticIndexer implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly dispatcher: OutboxDispatcher,
    private readonly jobs: JobRunner,
    private readonly configs: EmbeddingConfigService,
    private readonly embedder: EmbedderService,
    private readonly store: VectorStore,
    private readonly sources: SemanticSourceQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register(REFRESH_JOB, (payload) => this.refresh(payload.item_type, payload.item_ids));
    // One refresh job per dispatched batch and item type, for all the items its events changed.
    const refresh =
      (type: SemanticItemType) => async (events: { id: string }[], em: EntityManager, ids: string[]) =>
        this.jobs.enqueue(
          em,
          REFRESH_JOB,
          { item_type: type, item_ids: [...new Set(ids)] },
          { singletonKey: `${REFRESH_JOB}:${events[0].id}` },
        );
    const onProducts = refresh('product');
    const onPages = refresh('standard_page');
    this.dispatcher.onBatch(
      ['product.created', 'product.updated'],
      'embeddings.index-product',
      (events, em) =>
        onProducts(
          events,
          em,
          events.map((e) => e.data.product_id),
        ),
    );
    this.dispatcher.on('product.deleted', 'embeddings.remove-product', (e, em) =>
      this.store.remove(em, 'product', [e.data.product_id]),
    );
    this.dispatcher.onBatch(
      ['standard_page.created', 'standard_page.updated', 'standard_page.published'],
      'embeddings.index-standard-page',
      (events, em) =>
        onPages(
          events,
          em,
          events.map((e) => e.data.standard_page_id),
        ),
    );
    for (const type of ['standard_page.unpublished', 'standard_page.deleted'] as const) {
      this.dispatcher.on(type, 'embeddings.remove-standard-page', (e, em) =>
        this.store.remove(em, 'standard_page', [e.data.standard_page_id]),
      );
    }
  }

  /** Items per provider call (and per committed reindex step) for this configuration. */
  batchSizeFor(config: EffectiveEmbeddingConfig): number {
    return this.embedder.batchSize(config);
  }

  /** Re-embeds these items as they are now; items gone (or unpublished) leave the index. */
  async refresh(type: SemanticItemType, ids: string[]): Promise<void> {
    const config = await this.configs.effective();
    if (!config.isEnabled) return;
    const items = await this.sources.byIds(this.dataSource.manager, type, ids);
    const batch = await this.prepare(config, type, items);
    const present = new Set(items.map((item) => item.id));
    await this.tx.run(async (em) => {
      await this.store.remove(
        em,
        type,
        ids.filter((id) => !present.has(id)),
      );
      await this.store.upsert(em, type, producerOf(config), batch.vectors);
    });
  }

  /**
   * Embeds the items whose text (or embedder) changed since their stored
   * vector, in one provider call per batch. Runs outside any transaction:
   * a hosted provider may take seconds.
   */
  async prepare(
    config: EffectiveEmbeddingConfig,
    type: SemanticItemType,
    items: SourceItem[],
  ): Promise<PreparedBatch> {
    if (!items.length) return { vectors: [], unchanged: 0 };
    const producer = producerOf(config);
    const stored = await this.store.hashes(
      this.dataSource.manager,
      type,
      items.map((item) => item.id),
      producer,
    );
    const changed = items
      .map((item) => ({ item, hash: contentHash(producer.fingerprint, item.text) }))
      .filter(({ item, hash }) => stored.get(item.id) !== hash);
    const vectors = await this.embedder.embed(
      config,
      changed.map(({ item }) => item.text),
      'document',
    );
    return {
      unchanged: items.length - changed.length,
      vectors: changed.map(({ item, hash }, i) => ({
        itemId: item.id,
        spaceId: item.spaceId,
        vector: vectors[i],
        contentHash: hash,
        sourceUpdatedAt: item.updatedAt,
      })),
    };
  }
}
