import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pending OpenLineage events are applied in event-time order. Events with the
 * same event time (a producer's start and its correction, or two events sent
 * with one fixed time) were applied in whatever order the claim's plan
 * returned them, which decided which of two conflicting edges was skipped;
 * `seq` breaks such ties in the order the events arrived, and the pending
 * index covers both.
 */
export class OpenLineageEventOrder1797550000000 implements MigrationInterface {
  name = 'OpenLineageEventOrder1797550000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "openlineage_events" ADD "seq" bigserial NOT NULL`);
    await queryRunner.query(`DROP INDEX "openlineage_events_pending_idx"`);
    await queryRunner.query(
      `CREATE INDEX "openlineage_events_pending_idx" ON "openlineage_events" ("event_time", "seq") WHERE processed_at IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "openlineage_events_pending_idx"`);
    await queryRunner.query(
      `CREATE INDEX "openlineage_events_pending_idx" ON "openlineage_events" ("event_time") WHERE processed_at IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE "openlineage_events" DROP COLUMN "seq"`);
  }
}
