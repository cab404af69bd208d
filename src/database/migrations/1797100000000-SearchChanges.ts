import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which transactions changed what a search answer is made of, so that a
 * cached answer (SearchCache) is served only while no change has committed
 * since the snapshot it was computed in.
 *
 * - `search_changes` holds the id of each transaction that wrote one of the
 *   tables below, once per transaction (one statement trigger per table; a
 *   second statement of the same transaction finds its row and adds none).
 *   Writers never wait for each other: each inserts its own key.
 * - A transaction id, not a clock or a sequence: a change is "since" a
 *   cached answer when its transaction is visible now and was not visible in
 *   that answer's snapshot (`pg_visible_in_snapshot`), so a writer that
 *   commits after a search began is caught however its id compares.
 * - The tables: the six searchable sources (titles, snippets and read rules
 *   come from them; their triggers write `search_documents` in the same
 *   statement, so it needs none of its own), memberships and spaces (who
 *   reads what, slugs, the incidents feature) and the vectors (semantic and
 *   hybrid answers).
 * - `search_change_horizon` is where pruning starts next time (see
 *   SearchCache): one row.
 * - The triggers fire ALWAYS, also where a session replicates
 *   (`session_replication_role = replica`): a change they miss would leave
 *   answers stale.
 */
export const SEARCH_WATCHED_TABLES = [
  'products',
  'standard_pages',
  'risks',
  'policies',
  'quality_incidents',
  'tickets',
  'spaces',
  'space_memberships',
  'item_embeddings',
  'item_embedding_removals',
];

const trigger = (table: string) => `"${table}_search_change"`;

export class SearchChanges1797100000000 implements MigrationInterface {
  name = 'SearchChanges1797100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "search_changes" ("xid" xid8 NOT NULL, CONSTRAINT "search_changes_pkey" PRIMARY KEY ("xid"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "search_change_horizon" (
         "id" smallint NOT NULL DEFAULT 1,
         "horizon" xid8 NOT NULL,
         "taken_at" timestamptz NOT NULL,
         CONSTRAINT "search_change_horizon_pkey" PRIMARY KEY ("id"),
         CONSTRAINT "search_change_horizon_one_row" CHECK ("id" = 1)
       )`,
    );
    await queryRunner.query(
      `INSERT INTO "search_change_horizon" ("horizon", "taken_at") VALUES ('0'::xid8, '-infinity')`,
    );
    await queryRunner.query(
      `CREATE FUNCTION "search_change_record"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO search_changes (xid) VALUES (pg_current_xact_id()) ON CONFLICT (xid) DO NOTHING;
         RETURN NULL;
       END $$`,
    );
    for (const table of SEARCH_WATCHED_TABLES) {
      await queryRunner.query(
        `CREATE TRIGGER ${trigger(table)} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}"
           FOR EACH STATEMENT EXECUTE FUNCTION "search_change_record"()`,
      );
      await queryRunner.query(`ALTER TABLE "${table}" ENABLE ALWAYS TRIGGER ${trigger(table)}`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of SEARCH_WATCHED_TABLES)
      await queryRunner.query(`DROP TRIGGER ${trigger(table)} ON "${table}"`);
    await queryRunner.query(`DROP FUNCTION "search_change_record"()`);
    await queryRunner.query(`DROP TABLE "search_change_horizon"`);
    await queryRunner.query(`DROP TABLE "search_changes"`);
  }
}
