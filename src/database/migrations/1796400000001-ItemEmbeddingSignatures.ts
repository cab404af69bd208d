import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A binary signature per vector (its positive and its negative components as
 * bits) and covering indexes over it: without pgvector, a nearest query ranks
 * the filtered candidates by Hamming distance from the index alone, then
 * computes the exact cosine on the closest few hundred rows only.
 */
export class ItemEmbeddingSignatures1796400000001 implements MigrationInterface {
  name = 'ItemEmbeddingSignatures1796400000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Vectors written before have no signature: they are dropped and rebuilt by the next reindex or change.
    await queryRunner.query(`DELETE FROM "item_embeddings"`);
    await queryRunner.query(`ALTER TABLE "item_embeddings" ADD "signature" bit varying NOT NULL`);
    await queryRunner.query(`DROP INDEX "public"."item_embeddings_space_type_idx"`);
    await queryRunner.query(
      `CREATE INDEX "item_embeddings_space_type_idx" ON "item_embeddings" ("space_id", "item_type", "dimensions") INCLUDE ("item_id", "signature")`,
    );
    // The same for a search over every space (a superadmin's).
    await queryRunner.query(`DROP INDEX "public"."item_embeddings_type_dimensions_idx"`);
    await queryRunner.query(
      `CREATE INDEX "item_embeddings_type_dimensions_idx" ON "item_embeddings" ("item_type", "dimensions") INCLUDE ("space_id", "item_id", "signature")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."item_embeddings_type_dimensions_idx"`);
    await queryRunner.query(
      `CREATE INDEX "item_embeddings_type_dimensions_idx" ON "item_embeddings" ("item_type", "dimensions") `,
    );
    await queryRunner.query(`DROP INDEX "public"."item_embeddings_space_type_idx"`);
    await queryRunner.query(
      `CREATE INDEX "item_embeddings_space_type_idx" ON "item_embeddings" ("space_id", "item_type", "dimensions") `,
    );
    await queryRunner.query(`ALTER TABLE "item_embeddings" DROP COLUMN "signature"`);
  }
}
