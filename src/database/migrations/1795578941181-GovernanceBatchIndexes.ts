import { MigrationInterface, QueryRunner } from 'typeorm';

export class GovernanceBatchIndexes1795578941181 implements MigrationInterface {
  name = 'GovernanceBatchIndexes1795578941181';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "products_space_id_idx" ON "products"  ("space_id", "id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."products_space_id_idx"`);
  }
}
