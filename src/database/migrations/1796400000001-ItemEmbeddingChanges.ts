import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a process holding item vectors in memory (search without pgvector)
 * needs to follow changes: the id of the transaction that wrote each row,
 * and a record of removed rows with the id of the transaction that removed
 * them. Transaction ids, unlike clocks, let a reader ask for everything at
 * or above the oldest transaction still running at its previous read, so a
 * late commit is never skipped (see vector.cache.ts).
 */
export class ItemEmbeddingChanges1796400000001 implements MigrationInterface {
  name = 'ItemEmbeddingChanges1796400000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "item_embeddings" ADD "written_xid" bigint NOT NULL DEFAULT 0`);
    await queryRunner.query(`ALTER TABLE "item_embeddings" ALTER COLUMN "written_xid" DROP DEFAULT`);
    await queryRunner.query(
      `CREATE INDEX "item_embeddings_written_xid_idx" ON "item_embeddings" ("written_xid", "item_type", "item_id") `,
    );
    await queryRunner.query(`
      CREATE FUNCTION item_embeddings_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.written_xid := pg_current_xact_id()::text::bigint;
        RETURN NEW;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER item_embeddings_stamp BEFORE INSERT OR UPDATE ON item_embeddings
         FOR EACH ROW EXECUTE FUNCTION item_embeddings_stamp()`,
    );
    await queryRunner.query(
      `CREATE TABLE "item_embedding_removals" ("item_type" text NOT NULL, "item_id" uuid NOT NULL, "removed_xid" bigint NOT NULL, "removed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now())`,
    );
    await queryRunner.query(
      `CREATE INDEX "item_embedding_removals_xid_idx" ON "item_embedding_removals" ("removed_xid") `,
    );
    await queryRunner.query(
      `CREATE INDEX "item_embedding_removals_at_idx" ON "item_embedding_removals" ("removed_at") `,
    );
    // Per statement: clearing every vector (a change of provider) records them in one insert.
    await queryRunner.query(`
      CREATE FUNCTION item_embeddings_note_removals() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO item_embedding_removals (item_type, item_id, removed_xid)
        SELECT item_type, item_id, pg_current_xact_id()::text::bigint FROM removed_rows;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER item_embeddings_note_removals AFTER DELETE ON item_embeddings
         REFERENCING OLD TABLE AS removed_rows FOR EACH STATEMENT EXECUTE FUNCTION item_embeddings_note_removals()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER item_embeddings_note_removals ON item_embeddings`);
    await queryRunner.query(`DROP FUNCTION item_embeddings_note_removals()`);
    await queryRunner.query(`DROP TABLE "item_embedding_removals"`);
    await queryRunner.query(`DROP TRIGGER item_embeddings_stamp ON item_embeddings`);
    await queryRunner.query(`DROP FUNCTION item_embeddings_stamp()`);
    await queryRunner.query(`DROP INDEX "public"."item_embeddings_written_xid_idx"`);
    await queryRunner.query(`ALTER TABLE "item_embeddings" DROP COLUMN "written_xid"`);
  }
}
