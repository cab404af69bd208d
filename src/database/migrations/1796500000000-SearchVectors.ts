import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One weighted full-text document per searchable row (POST /search, keyword
 * mode), under the 'simple' configuration: no stemming and no stop words, so
 * names, codes and any language match as written. Weight A is the title or
 * name, B the description, C other text. A trigger keeps the column current
 * (a generated column cannot hold array_to_string, which is only stable),
 * and fires only when one of its source columns is written.
 */
interface SearchDocument {
  table: string;
  a: string;
  b: string;
  c: string | null;
  sources: string[];
}

const DOCUMENTS: SearchDocument[] = [
  {
    table: 'products',
    a: 'NEW.name',
    b: 'NEW.description',
    c: `concat_ws(' ', NEW.domain, array_to_string(NEW.tags, ' '), NEW.product_type)`,
    sources: ['name', 'description', 'domain', 'tags', 'product_type'],
  },
  {
    table: 'risks',
    a: 'NEW.title',
    b: 'NEW.description',
    c: `concat_ws(' ', NEW.mitigation_plan, NEW.category)`,
    sources: ['title', 'description', 'mitigation_plan', 'category'],
  },
  {
    table: 'policies',
    a: 'NEW.name',
    b: 'NEW.description',
    c: 'NEW.policy_type',
    sources: ['name', 'description', 'policy_type'],
  },
  {
    table: 'quality_incidents',
    a: 'NEW.title',
    b: 'NEW.description',
    c: 'NEW.root_cause',
    sources: ['title', 'description', 'root_cause'],
  },
  { table: 'tickets', a: 'NEW.title', b: 'NEW.description', c: null, sources: ['title', 'description'] },
];

const weighted = (expression: string, weight: string) =>
  `setweight(to_tsvector('simple', coalesce(${expression}, '')), '${weight}')`;

export class SearchVectors1796500000000 implements MigrationInterface {
  name = 'SearchVectors1796500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const doc of DOCUMENTS) {
      const parts = [weighted(doc.a, 'A'), weighted(doc.b, 'B'), ...(doc.c ? [weighted(doc.c, 'C')] : [])];
      await queryRunner.query(`ALTER TABLE "${doc.table}" ADD "search_vector" tsvector`);
      await queryRunner.query(
        `CREATE FUNCTION "${doc.table}_search_vector_refresh"() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           NEW.search_vector := ${parts.join(' || ')};
           RETURN NEW;
         END $$`,
      );
      await queryRunner.query(
        `CREATE TRIGGER "${doc.table}_search_vector_trg" BEFORE INSERT OR UPDATE OF ${doc.sources
          .map((c) => `"${c}"`)
          .join(
            ', ',
          )} ON "${doc.table}" FOR EACH ROW EXECUTE FUNCTION "${doc.table}_search_vector_refresh"()`,
      );
      // Rewriting a source column fires the trigger: the backfill uses the very same expression.
      await queryRunner.query(`UPDATE "${doc.table}" SET "${doc.sources[0]}" = "${doc.sources[0]}"`);
      await queryRunner.query(
        `CREATE INDEX "${doc.table}_search_vector_idx" ON "${doc.table}" USING gin ("search_vector")`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const doc of [...DOCUMENTS].reverse()) {
      await queryRunner.query(`DROP INDEX "public"."${doc.table}_search_vector_idx"`);
      await queryRunner.query(`DROP TRIGGER "${doc.table}_search_vector_trg" ON "${doc.table}"`);
      await queryRunner.query(`DROP FUNCTION "${doc.table}_search_vector_refresh"()`);
      await queryRunner.query(`ALTER TABLE "${doc.table}" DROP COLUMN "search_vector"`);
    }
  }
}
