import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { SpaceAccessPort } from '../../common/permissions/space-access.port';
import type { EffectiveEmbeddingConfig } from '../embeddings/embedding-config.types';
import { SemanticIndexService, SemanticItemType } from '../embeddings/semantic-index.service';
import { SearchDto, SearchItemResponse, SearchResponse } from './dto/search.dto';
import { reciprocalRankFusion } from './rank-fusion';
import { SearchCache } from './search.cache';
import { KeywordHits, SearchHit, SearchQueries, SearchScope } from './search.queries';
import { KeywordQuery, keywordQuery, renderSnippet } from './search-text';
import { SEARCH_TYPES, SearchMode, SearchType } from './search-types';

/** The types with vectors in the semantic index; the others are found by keyword only. */
const SEMANTIC_TYPES: readonly SemanticItemType[] = ['product', 'standard_page'];

/** A search as asked, its defaults applied (the cache key is made of it). */
interface SearchRequest {
  query: string;
  /** In SEARCH_TYPES order, each once. */
  types: SearchType[];
  spaceSlug: string | null;
  limit: number;
  mode: SearchMode;
}

const TYPE_ORDER = new Map<SearchType, number>(SEARCH_TYPES.map((type, index) => [type, index]));

/** Best first; equal scores by type, then id, so pages are stable. */
function byScore(a: SearchHit, b: SearchHit): number {
  return (
    b.score - a.score ||
    TYPE_ORDER.get(a.type)! - TYPE_ORDER.get(b.type)! ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

@Injectable()
export class SearchService {
  /** Matches are counted exactly up to this many (Elasticsearch's `track_total_hits`). */
  private readonly exactTotalUpTo: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly access: SpaceAccessPort,
    private readonly queries: SearchQueries,
    private readonly semanticIndex: SemanticIndexService,
    private readonly cache: SearchCache,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.exactTotalUpTo = config.searchExactTotalUpTo;
  }

  /**
   * Answers from the cache while nothing the answer is made of has changed
   * (SearchCache). The key holds everything else it depends on: the caller,
   * the request, and for semantic matching the embedder and index version.
   */
  async search(actor: Actor, dto: SearchDto): Promise<SearchResponse> {
    const request: SearchRequest = {
      query: dto.query,
      types: SEARCH_TYPES.filter((type) => !dto.types || dto.types.includes(type)),
      spaceSlug: dto.space_slug ?? null,
      limit: dto.limit ?? 20,
      mode: dto.mode ?? 'hybrid',
    };
    const embedding = request.mode === 'keyword' ? null : await this.semanticIndex.configuration();
    const key = JSON.stringify([
      actor.userId,
      actor.isSuperadmin,
      request,
      embedding && SemanticIndexService.answersOf(embedding),
    ]);
    return this.cache.answer(key, () => this.compute(actor, request, embedding));
  }

  private async compute(
    actor: Actor,
    { query: text, types, spaceSlug, limit, mode }: SearchRequest,
    embedding: EffectiveEmbeddingConfig | null,
  ): Promise<{ answer: SearchResponse; cacheable: boolean }> {
    const scope = await this.scopeOf(actor, spaceSlug);
    const query = keywordQuery(text);

    const [semantic, keyword] = await Promise.all([
      embedding ? this.semanticHits(embedding, text, types, scope, limit) : null,
      mode === 'semantic' ? null : this.queries.keywordHits(query, types, scope, limit, this.exactTotalUpTo),
    ]);
    return {
      answer: await this.merged(query, semantic, keyword, scope, limit),
      // No semantic hits from an enabled embedder: the provider or the vector store failed (not kept).
      cacheable: semantic !== null || !embedding?.isEnabled,
    };
  }

  /** The answer of either list alone, or of both fused. */
  private async merged(
    query: KeywordQuery,
    semantic: SearchHit[] | null,
    keyword: KeywordHits | null,
    scope: SearchScope,
    limit: number,
  ): Promise<SearchResponse> {
    // Semantic mode: every neighbour found is a match, so the total is what is shown.
    if (!keyword) return this.answer(query, semantic ?? [], null, scope);
    const ranked = keyword.hits.sort(byScore).slice(0, limit);
    if (!semantic) return this.answer(query, ranked, keyword.total, scope);

    const fused = reciprocalRankFusion(
      [ranked, semantic.slice(0, limit)].map((list) =>
        list.map((hit) => ({ ...hit, key: `${hit.type}:${hit.id}` })),
      ),
    ).map(({ item, score }) => ({ type: item.type, id: item.id, score }));
    // The page and the count of the semantic hits the words miss: one statement.
    const { items, unmatched } = await this.shown(query, fused.slice(0, limit), scope, semantic);
    return { items, ...this.bounded(keyword.total + unmatched) };
  }

  /** A count as answered: exact up to the bound, else the bound as a lower limit. */
  private bounded(count: number): Pick<SearchResponse, 'total' | 'total_relation'> {
    return count > this.exactTotalUpTo
      ? { total: this.exactTotalUpTo, total_relation: 'gte' }
      : { total: count, total_relation: 'eq' };
  }

  /** The one space of `space_slug` (404 unless the caller reads it), else every space the caller reads. */
  private async scopeOf(actor: Actor, spaceSlug: string | null): Promise<SearchScope> {
    const scope: SearchScope = { userId: actor.userId, isSuperadmin: actor.isSuperadmin, spaceId: null };
    if (spaceSlug !== null)
      scope.spaceId = (
        await this.access.requireRole(actor, spaceSlug, 'viewer', this.dataSource.manager)
      ).space.id;
    return scope;
  }

  /**
   * Neighbours from the embedding index, among the caller's spaces only; an
   * empty list when no type asked for has vectors, null when the index
   * cannot answer (embeddings disabled, provider failed).
   */
  private async semanticHits(
    embedding: EffectiveEmbeddingConfig,
    text: string,
    types: readonly SearchType[],
    scope: SearchScope,
    limit: number,
  ): Promise<SearchHit[] | null> {
    const semanticTypes = SEMANTIC_TYPES.filter((type) => types.includes(type));
    if (!semanticTypes.length) return [];
    const spaceIds = scope.spaceId
      ? [scope.spaceId]
      : scope.isSuperadmin
        ? ('all' as const)
        : await this.queries.memberSpaceIds(scope.userId);
    if (!spaceIds.length) return [];
    const hits = await this.semanticIndex.nearestTo(
      text,
      { types: semanticTypes, spaceIds, limit },
      embedding,
    );
    return hits?.map(({ type, id, score }) => ({ type, id, score })) ?? null;
  }

  private async answer(
    query: KeywordQuery,
    hits: SearchHit[],
    total: number | null,
    scope: SearchScope,
  ): Promise<SearchResponse> {
    const { items } = await this.shown(query, hits, scope, []);
    return { items, ...this.bounded(total ?? items.length) };
  }

  /** The hits as shown, with their scores; and how many of `semantic` the words do not match. */
  private async shown(
    query: KeywordQuery,
    hits: SearchHit[],
    scope: SearchScope,
    semantic: SearchHit[],
  ): Promise<{ items: SearchItemResponse[]; unmatched: number }> {
    const scores = new Map(hits.map((hit) => [`${hit.type}:${hit.id}`, hit.score]));
    const page = await this.queries.hydrate(query, hits, scope, semantic);
    const items: SearchItemResponse[] = page.items.map((row) => ({
      type: row.type,
      id: row.id,
      space_slug: row.space_slug,
      title: row.title,
      snippet: renderSnippet(row.headline),
      score: scores.get(`${row.type}:${row.id}`)!,
    }));
    return { items, unmatched: page.unmatched };
  }
}
