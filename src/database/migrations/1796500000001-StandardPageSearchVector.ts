import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The standards pages' full-text document for POST /search, kept like the
 * others (SearchVectors migration): 'simple' configuration, the title
 * weighted A and the body B, refreshed by a trigger when either is written.
 */
export class StandardPageSearchVector1796500000001 implements MigrationInterface {
  name = 'StandardPageSearchVector1796500000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "standard_pages" ADD "search_vector" tsvector`);
    await queryRunner.query(
      `CREATE FUNCTION "standard_pages_search_vector_refresh"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         NEW.search_vector := setweight(to_tsvector('simple', coalesce(NEW.title, '')), 'A') ||
                              setweight(to_tsvector('simple', coalesce(NEW.body, '')), 'B');
         RETURN NEW;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "standard_pages_search_vector_trg" BEFORE INSERT OR UPDATE OF "title", "body" ON "standard_pages" FOR EACH ROW EXECUTE FUNCTION "standard_pages_search_vector_refresh"()`,
    );
    await queryRunner.query(`UPDATE "standard_pages" SET "title" = "title"`);
    await queryRunner.query(
      `CREATE INDEX "standard_pages_search_vector_idx" ON "standard_pages" USING gin ("search_vector")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."standard_pages_search_vector_idx"`);
    await queryRunner.query(`DROP TRIGGER "standard_pages_search_vector_trg" ON "standard_pages"`);
    await queryRunner.query(`DROP FUNCTION "standard_pages_search_vector_refresh"()`);
    await queryRunner.query(`ALTER TABLE "standard_pages" DROP COLUMN "search_vector"`);
  }
}
