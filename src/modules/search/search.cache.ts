import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { LruCache } from '../../common/cache/lru-cache';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { InstanceContext } from '../../database/instance-context';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import type { SearchResponse } from './dto/search.dto';
import { SearchQueries } from './search.queries';

/**
 * How long a cached answer may be served, however unchanged: the pruning of
 * `search_changes` (SearchQueries.pruneChanges) relies on no answer living longer.
 */
const ANSWER_TTL_MS = 60_000;

const PRUNE_JOB = 'search.prune-changes';

/** A kept answer and the database snapshot (`pg_snapshot` text) taken before it was computed. */
interface KeptAnswer {
  snapshot: string;
  answer: SearchResponse;
}

/**
 * Search answers kept by this process, each served again only while no
 * transaction that wrote what it is made of (sources, memberships, spaces,
 * vectors) has committed since the snapshot taken before it was computed.
 * That check is one indexed read, so an answer is never stale, whichever
 * worker or replica wrote, and a writer still running when a search began
 * is caught once it commits. Keys are per instance: each has its own
 * database and transaction ids.
 */
@Injectable()
export class SearchCache implements OnModuleInit {
  private readonly answers: LruCache<KeptAnswer>;
  private readonly enabled: boolean;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly queries: SearchQueries,
    private readonly jobs: JobRunner,
  ) {
    // 1 to 2 kB of memory an item (title, snippet, ids; measured 1.1 kB for 250-character snippets).
    this.answers = new LruCache({
      capacity: config.searchCacheItems,
      ttlMs: ANSWER_TTL_MS,
      weigh: ({ answer }) => 1 + answer.items.length,
    });
    this.enabled = config.searchCacheItems > 0;
  }

  onModuleInit(): void {
    this.jobs.register(PRUNE_JOB, () => this.prune());
    this.jobs.registerCron(PRUNE_JOB, '*/10 * * * *', PRUNE_JOB);
  }

  /**
   * The answer under `key` if still current, else `compute`'s, kept for
   * next time when it says it may be (a degraded answer, as when the
   * embedding provider failed, is not).
   */
  async answer(
    key: string,
    compute: () => Promise<{ answer: SearchResponse; cacheable: boolean }>,
  ): Promise<SearchResponse> {
    if (!this.enabled) return (await compute()).answer;
    const scopedKey = `${InstanceContext.instanceId()}\n${key}`;
    const cached = this.answers.get(scopedKey);
    const takenAt = Date.now();
    const { snapshot, changed } = await this.queries.snapshotSince(cached?.snapshot ?? null);
    if (cached && !changed) return cached.answer;
    // Every statement computing the answer takes its snapshot after this one: whatever they see
    // that this one did not, was committed since, and is therefore a change the next check finds.
    const { answer, cacheable } = await compute();
    // Its age counts from the snapshot: pruning relies on no snapshot older than the TTL being checked.
    if (cacheable) this.answers.set(scopedKey, { snapshot, answer }, takenAt);
    return answer;
  }

  async prune(): Promise<void> {
    await this.queries.pruneChanges();
  }
}
