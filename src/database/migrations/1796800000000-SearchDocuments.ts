import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One narrow row per searchable item (POST /search, keyword mode), so that a
 * query is one scan of one GIN index instead of one per table, over rows of
 * a few hundred bytes instead of whole products.
 *
 * - `search_vector` is a copy of the item's own weighted document (kept by
 *   the SearchVectors triggers), `title_vector` its weight-A part (title or
 *   name): a few lexemes, cheap to test on every match, so that ranking can
 *   start from the items whose title holds the whole query.
 * - `editors_only` marks standards pages in draft. Archived policies have no
 *   row: search leaves them out as the policy list does.
 * - The GIN index takes each write straight into its tree (fastupdate off):
 *   a pending list would be read whole by every search until a vacuum
 *   merges it (up to 4 MB; some 40 ms a query, measured).
 * - AFTER row triggers on each source table keep the rows current, in the
 *   writing transaction; an update fires them only when the document, the
 *   space or the visibility changed.
 */
interface Source {
  table: string;
  type: string;
  /** Over NEW: the item has a search row only when this holds. */
  indexed: string;
  editorsOnly: string;
  /** Columns besides search_vector and space_id whose change can change the row. */
  watched: string[];
}

const SOURCES: Source[] = [
  { table: 'products', type: 'product', indexed: 'TRUE', editorsOnly: 'FALSE', watched: [] },
  {
    table: 'standard_pages',
    type: 'standard_page',
    indexed: 'TRUE',
    editorsOnly: `NEW.status <> 'published'`,
    watched: ['status'],
  },
  { table: 'risks', type: 'risk', indexed: 'TRUE', editorsOnly: 'FALSE', watched: [] },
  {
    table: 'policies',
    type: 'policy',
    indexed: 'NOT NEW.is_archived',
    editorsOnly: 'FALSE',
    watched: ['is_archived'],
  },
  { table: 'quality_incidents', type: 'incident', indexed: 'TRUE', editorsOnly: 'FALSE', watched: [] },
  { table: 'tickets', type: 'ticket', indexed: 'TRUE', editorsOnly: 'FALSE', watched: [] },
];

const fn = (source: Source) => `"${source.table}_search_document_sync"`;

export class SearchDocuments1796800000000 implements MigrationInterface {
  name = 'SearchDocuments1796800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "search_documents" (
         "type" text NOT NULL,
         "id" uuid NOT NULL,
         "space_id" uuid NOT NULL,
         "editors_only" boolean NOT NULL DEFAULT false,
         "search_vector" tsvector NOT NULL,
         "title_vector" tsvector NOT NULL,
         CONSTRAINT "search_documents_pkey" PRIMARY KEY ("type", "id"),
         CONSTRAINT "search_documents_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE
       )`,
    );
    for (const source of SOURCES) {
      const row = (record: string) =>
        `'${source.type}', ${record}.id, ${record}.space_id, ${source.editorsOnly.replaceAll('NEW.', `${record}.`)},
         coalesce(${record}.search_vector, ''::tsvector),
         ts_filter(coalesce(${record}.search_vector, ''::tsvector), '{a}')`;
      await queryRunner.query(
        `CREATE FUNCTION ${fn(source)}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF TG_OP = 'DELETE' THEN
             DELETE FROM search_documents WHERE type = '${source.type}' AND id = OLD.id;
             RETURN OLD;
           END IF;
           IF NOT (${source.indexed}) THEN
             DELETE FROM search_documents WHERE type = '${source.type}' AND id = NEW.id;
             RETURN NEW;
           END IF;
           INSERT INTO search_documents (type, id, space_id, editors_only, search_vector, title_vector)
           VALUES (${row('NEW')})
           ON CONFLICT (type, id) DO UPDATE SET space_id = EXCLUDED.space_id, editors_only = EXCLUDED.editors_only,
             search_vector = EXCLUDED.search_vector, title_vector = EXCLUDED.title_vector;
           RETURN NEW;
         END $$`,
      );
      await queryRunner.query(
        `CREATE TRIGGER "${source.table}_search_document_trg" AFTER INSERT OR DELETE ON "${source.table}"
         FOR EACH ROW EXECUTE FUNCTION ${fn(source)}()`,
      );
      const changed = ['search_vector', 'space_id', ...source.watched]
        .map((column) => `OLD."${column}" IS DISTINCT FROM NEW."${column}"`)
        .join(' OR ');
      await queryRunner.query(
        `CREATE TRIGGER "${source.table}_search_document_update_trg" AFTER UPDATE ON "${source.table}"
         FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION ${fn(source)}()`,
      );
      await queryRunner.query(
        `INSERT INTO search_documents (type, id, space_id, editors_only, search_vector, title_vector)
         SELECT ${row('x')} FROM "${source.table}" x WHERE ${source.indexed.replaceAll('NEW.', 'x.')}`,
      );
    }
    await queryRunner.query(
      `CREATE INDEX "search_documents_search_vector_idx" ON "search_documents" USING gin ("search_vector") WITH (fastupdate = off)`,
    );
    await queryRunner.query(`CREATE INDEX "search_documents_space_idx" ON "search_documents" ("space_id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const source of [...SOURCES].reverse()) {
      await queryRunner.query(
        `DROP TRIGGER "${source.table}_search_document_update_trg" ON "${source.table}"`,
      );
      await queryRunner.query(`DROP TRIGGER "${source.table}_search_document_trg" ON "${source.table}"`);
      await queryRunner.query(`DROP FUNCTION ${fn(source)}()`);
    }
    await queryRunner.query(`DROP TABLE "search_documents"`);
  }
}
