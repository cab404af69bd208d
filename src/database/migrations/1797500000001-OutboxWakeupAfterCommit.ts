import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox_events insert trigger's NOTIFY goes (issue 28). A transaction
 * that has NOTIFY'd takes PostgreSQL's notification-queue lock at commit and
 * holds it through its WAL flush, so every product or space create committed
 * one after another: under 16 concurrent creates, 80 of 291 pg_stat_activity
 * samples waited on `Lock:object` at COMMIT. The writers now signal the
 * dispatchers after commit instead (Wakeup.signal: one coalesced NOTIFY on the
 * listening connection, outside the writes' transactions).
 */
export class OutboxWakeupAfterCommit1797500000001 implements MigrationInterface {
  name = 'OutboxWakeupAfterCommit1797500000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "outbox_events_notify" ON "outbox_events"`);
    await queryRunner.query(`DROP FUNCTION "outbox_events_notify"()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE FUNCTION "outbox_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('verity_wakeup', 'outbox');
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "outbox_events_notify" AFTER INSERT ON "outbox_events"
         FOR EACH STATEMENT EXECUTE FUNCTION "outbox_events_notify"()`,
    );
  }
}
