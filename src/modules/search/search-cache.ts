import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { LruCache } from '../../common/cache/lru-cache';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { InstanceContext } from '../../database/instance-context';
import { PreparedQueries } from '../../database/prepared-queries';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import type { SearchResponse } from './dto/search.dto';

/**
 * How long a cached answer may be served, however unchanged: the pruning of
 * `search_changes` relies on no answer living longer.
 */
const ANSWER_TTL_MS = 60_000;

/**
 * A horizon prunes only once it is this old, longer than ANSWER_TTL_MS
 * with a margin for the two clocks (the server's and the database's).
 */
const PRUNE_HORIZON_AGE = '2 minutes';
const PRUNE_JOB = 'search.prune-changes';

/** A kept answer and the database snapshot (`pg_snapshot` text) taken before it was computed. */
interface KeptAnswer {
  snapshot: string;
  answer: SearchResponse;
}

// The snapshot a search starts from, and whether a transaction that wrote what a search reads
// (the SearchChanges migration) has committed since an earlier snapshot: visible now, not then.
const SNAPSHOT_SQL = `SELECT pg_current_snapshot()::text AS snapshot,
       $1::pg_snapshot IS NULL OR EXISTS (
         SELECT 1 FROM search_changes c
          WHERE c.xid >= pg_snapshot_xmin($1::pg_snapshot) AND NOT pg_visible_in_snapshot(c.xid, $1::pg_snapshot)
       ) AS changed`;

// Every transaction below a horizon taken at least PRUNE_HORIZON_AGE ago had ended by then, before
// any living answer's snapshot, which therefore sees it: its rows can no longer tell an answer stale.
const PRUNE_SQL = `WITH moved AS (
         UPDATE search_change_horizon h
            SET horizon = pg_snapshot_xmin(pg_current_snapshot()), taken_at = now()
           FROM search_change_horizon previous
          WHERE h.id = 1 AND previous.id = 1 AND h.taken_at <= now() - interval '${PRUNE_HORIZON_AGE}'
         RETURNING previous.horizon)
     DELETE FROM search_changes WHERE xid < (SELECT horizon FROM moved)`;

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
    private readonly prepared: PreparedQueries,
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
    const [{ snapshot, changed }] = await this.prepared.queryOutsideTransaction<{
      snapshot: string;
      changed: boolean;
    }>(SNAPSHOT_SQL, [cached?.snapshot ?? null]);
    if (cached && !changed) return cached.answer;
    // Every statement computing the answer takes its snapshot after this one: whatever they see
    // that this one did not, was committed since, and is therefore a change the next check finds.
    const { answer, cacheable } = await compute();
    // Its age counts from the snapshot: pruning relies on no snapshot older than the TTL being checked.
    if (cacheable) this.answers.set(scopedKey, { snapshot, answer }, takenAt);
    return answer;
  }

  async prune(): Promise<void> {
    await this.prepared.queryOutsideTransaction(PRUNE_SQL, []);
  }
}
