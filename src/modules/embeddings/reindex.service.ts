import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict } from '../../common/errors/domain-error';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { JobPayload } from '../../platform/jobs/job-map';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { ReindexResponse, ReindexRunResponse, ReindexStatusResponse } from './dto/embedding-config.dto';
import { EmbeddingConfigService } from './embedding-config.service';
import { currentScope, fingerprintOf, producerOf } from './embedding-config.types';
import { EmbeddingReindexRun } from './entities/embedding-reindex-run.entity';
import { SEMANTIC_ITEM_TYPES } from './entities/item-embedding.entity';
import { EmbeddingFailure } from './providers/embedder.service';
import { SemanticIndexer } from './semantic-indexer.service';
import { EmbeddingQueries } from './embeddings.queries';
import { SemanticSourceQueries } from './semantic-sources.queries';
import { SemanticItemType, VectorStore } from './vector.store';

export const REINDEX_JOB = 'embeddings.reindex';
/** Batches in a row the provider failed before the run gives up (the provider is down, not one bad text). */
const MAX_FAILED_BATCHES_IN_A_ROW = 3;

const LABEL: Record<SemanticItemType, string> = {
  product: 'products',
  standard_page: 'published standards pages',
};

/**
 * Reindexing as background work with progress. A run walks the items in id
 * order, one provider call per batch, and commits each batch's vectors with
 * its cursor and counters: a run taken over after a crash (the job's lease
 * ran out) continues after the cursor, so nothing done is redone.
 */
@Injectable()
export class ReindexService implements OnModuleInit {
  private readonly logger = new Logger(ReindexService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobRunner,
    private readonly configs: EmbeddingConfigService,
    private readonly indexer: SemanticIndexer,
    private readonly store: VectorStore,
    private readonly audit: AuditService,
    private readonly queries: EmbeddingQueries,
    private readonly sources: SemanticSourceQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register(REINDEX_JOB, (payload) => this.run(payload), {
      // A reindex of many items on a hosted provider runs long; it is resumable, so a retry costs little.
      timeoutMs: 6 * 60 * 60_000,
      maxAttempts: 10,
    });
  }

  async start(actor: Actor, type: SemanticItemType, scope = currentScope()): Promise<ReindexResponse> {
    const config = await this.configs.effective(scope);
    if (!config.isEnabled) {
      throw new Conflict(
        'Embeddings are disabled (is_enabled is false): enable them before reindexing.',
        'embeddings_disabled',
      );
    }
    await this.store.ensureIndex(config.dimensions);
    return this.tx.run(async (em) => {
      const repo = em.getRepository(EmbeddingReindexRun);
      const current = await repo.findOne({
        where: { scope, itemType: type },
        lock: { mode: 'pessimistic_write' },
      });
      if (current && (current.state === 'queued' || current.state === 'running')) {
        return {
          message: `A reindex of ${LABEL[type]} is already under way; follow GET /admin/embedding-config/reindex-status.`,
          total: current.total,
        };
      }
      const total = await this.sources.count(em, type);
      const runId = randomUUID();
      await repo.save({
        scope,
        itemType: type,
        runId,
        state: 'queued',
        total,
        done: 0,
        failed: 0,
        cursor: null,
        fingerprint: fingerprintOf(config),
        lastError: null,
        startedAt: new Date(),
        finishedAt: null,
      });
      await this.jobs.enqueue(
        em,
        REINDEX_JOB,
        { scope, item_type: type, run_id: runId },
        {
          singletonKey: `${REINDEX_JOB}:${runId}`,
        },
      );
      await this.audit.record(em, actor, {
        action: 'embedding_config.reindex_started',
        resourceType: 'embedding_config',
        resourceId: config.id,
        details: { item_type: type, total, run_id: runId },
      });
      return {
        message: `Reindexing ${total} ${LABEL[type]} in the background; follow GET /admin/embedding-config/reindex-status.`,
        total,
      };
    });
  }

  async status(scope = currentScope()): Promise<ReindexStatusResponse> {
    const runs = await this.dataSource
      .getRepository(EmbeddingReindexRun)
      .find({ where: { scope }, order: { itemType: 'ASC' } });
    const going = runs.some((r) => r.state === 'running' || r.state === 'queued');
    let state = 'idle';
    if (runs.some((r) => r.state === 'running')) state = 'running';
    else if (going) state = 'queued';
    else if (runs.some((r) => r.state === 'failed')) state = 'failed';
    else if (runs.length) state = 'succeeded';
    const finished = runs.map((r) => r.finishedAt?.getTime() ?? 0);
    return {
      state,
      total: runs.reduce((sum, r) => sum + r.total, 0),
      done: runs.reduce((sum, r) => sum + r.done, 0),
      failed: runs.reduce((sum, r) => sum + r.failed, 0),
      started_at: runs.length
        ? new Date(Math.min(...runs.map((r) => r.startedAt.getTime()))).toISOString()
        : null,
      finished_at: runs.length && !going ? new Date(Math.max(...finished)).toISOString() : null,
      runs: runs.map(toRunResponse),
    };
  }

  private async run(payload: JobPayload<'embeddings.reindex'>): Promise<void> {
    const runs = this.dataSource.getRepository(EmbeddingReindexRun);
    const where = { scope: payload.scope, itemType: payload.item_type };
    const started = await runs.findOneBy(where);
    if (!started || started.runId !== payload.run_id || !['queued', 'running'].includes(started.state))
      return;
    if (started.state === 'queued') await runs.update(where, { state: 'running' });
    let failedInARow = 0;
    for (;;) {
      const run = await runs.findOneByOrFail(where);
      if (run.runId !== payload.run_id || run.state !== 'running') return;
      const config = await this.configs.effective(payload.scope);
      if (fingerprintOf(config) !== run.fingerprint) {
        await this.finish(
          run,
          'failed',
          'The embedding configuration changed during the reindex: start a new one.',
        );
        return;
      }
      const items = await this.sources.after(
        this.dataSource.manager,
        payload.item_type,
        run.cursor,
        this.indexer.batchSizeFor(config),
      );
      if (!items.length) {
        await this.finish(
          run,
          run.failed ? 'failed' : 'succeeded',
          run.failed ? `${run.failed} items could not be embedded.` : null,
        );
        return;
      }
      let prepared: Awaited<ReturnType<SemanticIndexer['prepare']>> | null = null;
      let error: string | null = null;
      try {
        prepared = await this.indexer.prepare(config, payload.item_type, items);
      } catch (caught) {
        if (!(caught instanceof EmbeddingFailure)) throw caught;
        error = caught.message;
      }
      const last = items[items.length - 1].id;
      await this.tx.run(async (em) => {
        if (prepared) await this.store.upsert(em, payload.item_type, producerOf(config), prepared.vectors);
        // Fenced on the run id: a stale worker whose run was replaced writes nothing.
        await this.queries.recordReindexBatch(
          em,
          { scope: payload.scope, itemType: payload.item_type, runId: payload.run_id },
          last,
          prepared ? items.length : 0,
          prepared ? 0 : items.length,
          error,
        );
      });
      failedInARow = prepared ? 0 : failedInARow + 1;
      if (failedInARow >= MAX_FAILED_BATCHES_IN_A_ROW) {
        this.logger.warn(`Reindex of ${payload.item_type} stopped: ${error}`);
        await this.finish(await runs.findOneByOrFail(where), 'failed', error);
        return;
      }
    }
  }

  private async finish(
    run: EmbeddingReindexRun,
    state: 'succeeded' | 'failed',
    error: string | null,
  ): Promise<void> {
    await this.tx.run(async (em) => {
      // One finish at a time per scope: the second sees the first's outcome, so two runs ending together
      // cannot both leave the configuration pending.
      await this.queries.lock(em, `${REINDEX_JOB}:${run.scope}`);
      await this.queries.finishReindexRun(em, run, state, error);
      const status = state === 'failed' ? 'failed' : await this.statusAfterSuccess(em, run);
      if (status) await this.configs.markReindexed(em, run.scope, run.fingerprint, status);
    });
  }

  /**
   * A change of provider, model or size dropped the vectors of every type:
   * the configuration is active again only once each other type was
   * reindexed with the same fingerprint, or has nothing to index. Null
   * leaves the status as it is (another type is still pending or under way).
   */
  private async statusAfterSuccess(
    em: EntityManager,
    run: EmbeddingReindexRun,
  ): Promise<'active' | 'failed' | null> {
    const runs = em.getRepository(EmbeddingReindexRun);
    let complete = true;
    for (const type of SEMANTIC_ITEM_TYPES) {
      if (type === run.itemType) continue;
      const other = await runs.findOneBy({ scope: run.scope, itemType: type, fingerprint: run.fingerprint });
      if (other?.state === 'failed') return 'failed';
      if (other?.state !== 'succeeded' && (other || (await this.sources.count(em, type)) > 0))
        complete = false;
    }
    return complete ? 'active' : null;
  }
}

function toRunResponse(run: EmbeddingReindexRun): ReindexRunResponse {
  return {
    item_type: run.itemType,
    state: run.state,
    total: run.total,
    done: run.done,
    failed: run.failed,
    started_at: run.startedAt.toISOString(),
    finished_at: run.finishedAt?.toISOString() ?? null,
    error: run.lastError,
  };
}
