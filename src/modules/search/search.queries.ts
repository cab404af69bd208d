import { Injectable } from '@nestjs/common';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import { KeywordQuery, RAW_CLOSE, RAW_OPEN, SEARCH_CONFIG } from './search-text';
import { SEARCH_TYPES, type SearchType } from './search-types';

/** Who is searching and where: every statement filters by it, so nothing unreadable is ranked or counted. */
export interface SearchScope {
  userId: string;
  isSuperadmin: boolean;
  /** The one space of `space_slug`; null: every space the caller reads. */
  spaceId: string | null;
}

/** A row that matched, before its title and snippet are read. */
export interface SearchHit {
  type: SearchType;
  id: string;
  score: number;
}

export interface KeywordHits {
  /** The best `limit`, best first. */
  hits: SearchHit[];
  /** Matching readable rows of all the types, before any limit, counted up to `countUpTo` + 1. */
  total: number;
}

/** A hit as shown: its space, title and highlighted snippet (raw ts_headline markers). */
export interface HydratedHit {
  type: SearchType;
  id: string;
  space_slug: string;
  title: string;
  headline: string;
}

/** A page of hits as shown, and how many of the semantic hits asked about the keyword query does not match. */
export interface HydratedPage {
  items: HydratedHit[];
  unmatched: number;
}

/** Positional parameters, each value bound once however often the SQL names it. */
class Params {
  readonly values: unknown[] = [];
  private readonly named = new Map<string, string>();

  bind(name: string, value: unknown): string {
    let placeholder = this.named.get(name);
    if (!placeholder) {
      this.values.push(value);
      placeholder = `$${this.values.length}`;
      this.named.set(name, placeholder);
    }
    return placeholder;
  }
}

interface Source {
  table: string;
  title: string;
  /** The text a snippet is cut from: the description, else the title. */
  body: string;
  /** A rule of the owning module beyond space membership, over the row `x`. */
  visible?: (scope: SearchScope, params: Params) => string;
}

// The source tables: keyword matching reads the search documents, but titles, snippets and the
// hybrid count read the rows themselves, under the same read rules.
const SOURCES: Record<SearchType, Source> = {
  product: { table: 'products', title: 'x.name', body: `coalesce(nullif(x.description, ''), x.name)` },
  // Drafts only for those who may edit the space (the standards module's read rule).
  standard_page: {
    table: 'standard_pages',
    title: 'x.title',
    body: `coalesce(nullif(x.body, ''), x.title)`,
    visible: (scope, params) =>
      scope.isSuperadmin
        ? 'TRUE'
        : `(x.status = 'published' OR x.space_id = ANY(ARRAY(SELECT e.space_id FROM space_memberships e
             WHERE e.user_id = ${params.bind('user', scope.userId)}::uuid AND e.role IN ('admin', 'editor'))))`,
  },
  risk: { table: 'risks', title: 'x.title', body: `coalesce(nullif(x.description, ''), x.title)` },
  // Archived policies leave the policy list by default, and leave search with it.
  policy: {
    table: 'policies',
    title: 'x.name',
    body: `coalesce(nullif(x.description, ''), x.name)`,
    visible: () => 'NOT x.is_archived',
  },
  // Incident endpoints answer 403 in a space whose `quality.incidents` feature is off, superadmins included.
  incident: {
    table: 'quality_incidents',
    title: 'x.title',
    body: `coalesce(nullif(x.description, ''), nullif(x.root_cause, ''), x.title)`,
    visible: () =>
      `NOT EXISTS (SELECT 1 FROM spaces fs WHERE fs.id = x.space_id AND fs.features -> 'quality.incidents' = 'false'::jsonb)`,
  },
  ticket: { table: 'tickets', title: 'x.title', body: `coalesce(nullif(x.description, ''), x.title)` },
};

/**
 * How many matches are ranked: every match up to this many, else this many
 * candidates, title matches first. ts_rank_cd costs about 1.5 µs a row.
 */
export const RANK_WINDOW = 1000;

// ts_headline parses all the text it is given (about 40 ms for 100,000 characters):
// snippets are cut from the start of long texts only.
const SNIPPET_SOURCE_CHARS = 10_000;

// One excerpt of 15 to 35 words around the best cover of the query; short texts come whole.
const HEADLINE_OPTIONS = `StartSel=${RAW_OPEN}, StopSel=${RAW_CLOSE}, MaxWords=35, MinWords=15`;

/** Over the row `alias` (a source row `x` or a search document `d`). */
function spaceFilter(scope: SearchScope, params: Params, alias: 'x' | 'd'): string {
  if (scope.spaceId) return `${alias}.space_id = ${params.bind('space', scope.spaceId)}::uuid`;
  if (scope.isSuperadmin) return 'TRUE';
  // As an array (one init plan), so that the planner ANDs the space index with the text index
  // instead of probing the text index once per space.
  return `${alias}.space_id = ANY(ARRAY(SELECT m.space_id FROM space_memberships m WHERE m.user_id = ${params.bind('user', scope.userId)}::uuid))`;
}

function readable(source: Source, scope: SearchScope, params: Params): string {
  const rules = [spaceFilter(scope, params, 'x')];
  if (source.visible) rules.push(source.visible(scope, params));
  return rules.join(' AND ');
}

/**
 * The read rules over a search document `d`: the caller's spaces, the
 * types asked for, drafts to those who may edit the space (the standards module's read rule), and
 * no incidents of a space whose `quality.incidents` feature is off
 * (incident endpoints answer 403 there, superadmins included). Archived
 * policies have no document.
 */
function readableDocument(types: readonly SearchType[], scope: SearchScope, params: Params): string {
  const rules = [spaceFilter(scope, params, 'd')];
  if (types.length < SEARCH_TYPES.length) rules.push(`d.type = ANY(${params.bind('types', types)}::text[])`);
  if (types.includes('standard_page') && !scope.isSuperadmin)
    rules.push(`(NOT d.editors_only OR d.space_id = ANY(ARRAY(SELECT e.space_id FROM space_memberships e
                  WHERE e.user_id = ${params.bind('user', scope.userId)}::uuid AND e.role IN ('admin', 'editor'))))`);
  if (types.includes('incident'))
    rules.push(`(d.type <> 'incident' OR d.space_id <> ALL(ARRAY(SELECT fs.id FROM spaces fs
                  WHERE fs.features -> 'quality.incidents' = 'false'::jsonb)))`);
  return rules.join(' AND ');
}

function tsquery(query: KeywordQuery, params: Params): string {
  const websearch = `websearch_to_tsquery('${SEARCH_CONFIG}', ${params.bind('websearch', query.websearch)})`;
  if (!query.prefix) return websearch;
  return `(${websearch} && to_tsquery('${SEARCH_CONFIG}', ${params.bind('prefix', query.prefix)}))`;
}

// The snapshot a search starts from, and whether a transaction that wrote what a search reads
// (the SearchChanges migration) has committed since an earlier snapshot: visible now, not then.
const SNAPSHOT_SQL = `SELECT pg_current_snapshot()::text AS snapshot,
       $1::pg_snapshot IS NULL OR EXISTS (
         SELECT 1 FROM search_changes c
          WHERE c.xid >= pg_snapshot_xmin($1::pg_snapshot) AND NOT pg_visible_in_snapshot(c.xid, $1::pg_snapshot)
       ) AS changed`;

/**
 * A horizon prunes only once it is this old, longer than SearchCache's
 * ANSWER_TTL_MS with a margin for the two clocks (the server's and the database's).
 */
const PRUNE_HORIZON_AGE = '2 minutes';

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
 * Search's raw SQL. Full-text ranking (ts_rank_cd, ts_headline), reads by row
 * address and the snapshot arithmetic of the answer cache have no repository
 * equivalent. Indexes: search_documents_search_vector_idx (GIN) and
 * search_documents_space_idx for keyword hits, each source table's primary
 * key (and its search_vector) for the hybrid count and hydration,
 * space_memberships_user_idx for the caller's spaces, search_changes_pkey
 * (xid) for the cache's change check and its pruning.
 *
 * Unlike the other query classes, these statements take no `em`: they never
 * run inside a transaction and go straight to the pool through
 * PreparedQueries (named prepared statements, planned once per connection),
 * which is their executor.
 */
@Injectable()
export class SearchQueries {
  constructor(private readonly prepared: PreparedQueries) {}

  /**
   * Readable full-text matches over the search documents (SearchDocuments
   * migration): their exact count up to `countUpTo` + 1, and the best `limit` by ts_rank_cd
   * (normalised to 0..1), equal scores by type then id.
   *
   * Ranking costs a read of each candidate's document, the count does not,
   * so the ranked candidates are bounded: all the matches when there are
   * at most RANK_WINDOW of them (then the order is exact), else RANK_WINDOW
   * of them, those whose title holds the whole query first. A broad
   * query's answer then comes from title matches, ranked by the same
   * score, at a bounded cost.
   */
  async keywordHits(
    query: KeywordQuery,
    types: readonly SearchType[],
    scope: SearchScope,
    limit: number,
    countUpTo: number,
  ): Promise<KeywordHits> {
    if (!types.length) return { hits: [], total: 0 };
    const params = new Params();
    const tsq = tsquery(query, params);
    const readable = readableDocument(types, scope, params);
    const window = params.bind('window', RANK_WINDOW);
    // One more than the exact count's bound: finding it tells the count stopped there.
    const countTo = params.bind('countTo', countUpTo + 1);
    // One scan of the matches keeps each one's row address and whether its title holds the query: the
    // count reads that, and the candidates are title matches first (Append runs its arms in order, and the
    // outer LIMIT stops the second early), read back by address (a TID scan) to be ranked.
    // Unnamed: a generic plan, which a named statement settles on, does not know how many rows the
    // query matches and costs several times more than a plan made for these values.
    const rows = await this.prepared.queryUnnamedOutsideTransaction<{
      type: SearchType;
      id: string;
      score: number;
      total: number;
    }>(
      `WITH matched AS MATERIALIZED (
         SELECT d.ctid AS tid, d.title_vector @@ ${tsq} AS in_title
           FROM search_documents d
          WHERE d.search_vector @@ ${tsq} AND ${readable}),
       candidates AS (
         (SELECT tid FROM matched WHERE in_title LIMIT ${window})
         UNION ALL
         (SELECT tid FROM matched WHERE NOT in_title LIMIT ${window})
         LIMIT ${window})
       SELECT d.type, d.id, ts_rank_cd(d.search_vector, ${tsq}, 32) AS score,
              (SELECT count(*) FROM (SELECT FROM matched LIMIT ${countTo}) counted)::int AS total
        FROM search_documents d
        WHERE d.ctid = ANY(ARRAY(SELECT tid FROM candidates))
        ORDER BY score DESC, array_position(${params.bind('typeOrder', SEARCH_TYPES)}::text[], d.type), d.id
        LIMIT ${params.bind('limit', limit)}`,
      params.values,
    );
    return { hits: rows.map(({ type, id, score }) => ({ type, id, score })), total: rows[0]?.total ?? 0 };
  }

  /**
   * A snapshot to start a search from, and whether a transaction that wrote
   * what a search reads has committed since `since` (always true without one).
   */
  async snapshotSince(since: string | null): Promise<{ snapshot: string; changed: boolean }> {
    const [row] = await this.prepared.queryOutsideTransaction<{ snapshot: string; changed: boolean }>(
      SNAPSHOT_SQL,
      [since],
    );
    return row;
  }

  /** Forgets the change rows no living cached answer can be stale by. */
  async pruneChanges(): Promise<void> {
    await this.prepared.queryOutsideTransaction(PRUNE_SQL, []);
  }

  /** The spaces the user is a member of (for the vector index, which takes a list). */
  async memberSpaceIds(userId: string): Promise<string[]> {
    const rows = await this.prepared.queryOutsideTransaction<{ space_id: string }>(
      'SELECT space_id FROM space_memberships WHERE user_id = $1',
      [userId],
    );
    return rows.map((row) => row.space_id);
  }

  /**
   * Titles, spaces and highlighted snippets of the hits, in their order
   * (shownRows: a hit the caller may not read, or that is gone, is left
   * out); and in the same statement how many of the `semantic` hits (from
   * the vector index) the keyword query does not match, so that a hybrid
   * total counts each matching item once.
   */
  async hydrate(
    query: KeywordQuery,
    page: readonly SearchHit[],
    scope: SearchScope,
    semantic: readonly SearchHit[] = [],
  ): Promise<HydratedPage> {
    if (!page.length && !semantic.length) return { items: [], unmatched: 0 };
    const params = new Params();
    const tsq = tsquery(query, params);
    const unmatched = semantic.length
      ? `SELECT count(*)::int AS n FROM ${hitPairs(semantic, params, 'semantic')}
          WHERE NOT EXISTS (${typesOf(semantic)
            .map(
              (type) =>
                `SELECT 1 FROM ${SOURCES[type].table} x
                  WHERE h.type = '${type}' AND x.id = h.id AND x.search_vector @@ ${tsq}`,
            )
            .join(' UNION ALL ')})`
      : 'SELECT 0 AS n';
    if (!page.length) {
      const [row] = await this.prepared.queryOutsideTransaction<{ n: number }>(unmatched, params.values);
      return { items: [], unmatched: row.n };
    }
    const pairs = hitPairs(page, params, 'page');
    const shown = shownRows(query, typesOf(page), scope, params);
    // One row at least (the count), whether or not a hit is still there to show.
    const rows = await this.prepared.queryOutsideTransaction<
      { unmatched: number } & { [K in keyof HydratedHit]: HydratedHit[K] | null }
    >(
      `SELECT u.n AS unmatched, p.type, p.id, p.space_slug, p.title, p.headline
         FROM (${unmatched}) u
         LEFT JOIN LATERAL (
           SELECT h.type, h.id, s.slug AS space_slug, d.title, ${shown.headline} AS headline, h.position
             FROM ${pairs}
            CROSS JOIN LATERAL (${shown.rows}) d
             JOIN spaces s ON s.id = d.space_id) p ON TRUE
        ORDER BY p.position`,
      params.values,
    );
    return {
      items: rows.filter((row): row is typeof row & HydratedHit => row.id !== null),
      unmatched: rows[0].unmatched,
    };
  }
}

/**
 * What is shown of a hit `h(type, id)`: a LATERAL subquery over the source
 * row under the read rules of its module (so a hit from elsewhere, the
 * vector index, that the caller may not read, or that is gone, is left out),
 * and the highlighted snippet over its columns `d(space_id, title, body)`.
 */
function shownRows(
  query: KeywordQuery,
  types: readonly SearchType[],
  scope: SearchScope,
  params: Params,
): { rows: string; headline: string } {
  const tsq = tsquery(query, params);
  const rows = types
    .map((type) => {
      const source = SOURCES[type];
      return `SELECT x.space_id, ${source.title} AS title, ${source.body} AS body
                FROM ${source.table} x
               WHERE h.type = '${type}' AND x.id = h.id AND ${readable(source, scope, params)}`;
    })
    .join(' UNION ALL ');
  const options = params.bind('options', HEADLINE_OPTIONS);
  const headline = `ts_headline('${SEARCH_CONFIG}', translate(left(d.body, ${SNIPPET_SOURCE_CHARS}), chr(2) || chr(3), ''),
                          ${tsq}, ${options})`;
  return { rows, headline };
}

/** The types among the hits, in one fixed order: each set of types is one statement text (prepared once). */
function typesOf(hits: readonly SearchHit[]): SearchType[] {
  const present = new Set(hits.map((hit) => hit.type));
  return SEARCH_TYPES.filter((type) => present.has(type));
}

/** The hits as a relation `h(type, id, position)`, in their order; `name` tells two lists apart. */
function hitPairs(hits: readonly SearchHit[], params: Params, name: string): string {
  const types = params.bind(
    `${name}Types`,
    hits.map((hit) => hit.type),
  );
  const ids = params.bind(
    `${name}Ids`,
    hits.map((hit) => hit.id),
  );
  return `unnest(${types}::text[], ${ids}::uuid[]) WITH ORDINALITY AS h(type, id, position)`;
}
