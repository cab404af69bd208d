import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each vector records the embedder that made it (`provider:model:dimensions`,
 * as `fingerprintOf`), so that a nearest query compares a query vector only
 * with vectors of its own embedder: an instance following the global
 * configuration keeps its vectors when that configuration changes, and
 * vectors of the same size by another model must not answer. Vectors stored
 * before are credited to their database's stored configuration when their
 * size matches; the others (made with the environment's, or the global,
 * configuration) keep an empty fingerprint until re-embedded (see
 * VectorStore.adopt for the deployment database).
 */
export class ItemEmbeddingFingerprint1797050000000 implements MigrationInterface {
  name = 'ItemEmbeddingFingerprint1797050000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "item_embeddings" ADD "fingerprint" text NOT NULL DEFAULT ''`);
    await queryRunner.query(`ALTER TABLE "item_embeddings" ALTER COLUMN "fingerprint" DROP DEFAULT`);
    await queryRunner.query(
      `UPDATE item_embeddings e SET fingerprint = c.provider || ':' || c.model_name || ':' || c.dimensions
         FROM (SELECT provider, model_name, dimensions FROM embedding_configs ORDER BY scope LIMIT 1) c
        WHERE e.dimensions = c.dimensions`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "item_embeddings" DROP COLUMN "fingerprint"`);
  }
}
