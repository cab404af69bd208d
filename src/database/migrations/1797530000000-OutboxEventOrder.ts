import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events are dispatched in the order they were written. `occurred_at` is the
 * writing transaction's time, the same for every event one transaction
 * writes (an alert and the incident it opens), so ties were dispatched in
 * whatever order the claim's plan returned them; `seq` breaks them in
 * insertion order, and the unpublished-events index covers both.
 */
export class OutboxEventOrder1797530000000 implements MigrationInterface {
  name = 'OutboxEventOrder1797530000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_events" ADD "seq" bigserial NOT NULL`);
    await queryRunner.query(`DROP INDEX "outbox_events_unpublished_idx"`);
    await queryRunner.query(
      `CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events" ("occurred_at", "seq") WHERE published_at IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "outbox_events_unpublished_idx"`);
    await queryRunner.query(
      `CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events" ("occurred_at") WHERE published_at IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP COLUMN "seq"`);
  }
}
