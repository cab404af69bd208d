import { MigrationInterface, QueryRunner } from 'typeorm';

export class TicketAttachments1795322826096 implements MigrationInterface {
  name = 'TicketAttachments1795322826096';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "attachments_ticket_fk" FOREIGN KEY ("ticket_id") REFERENCES "tickets"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "attachments_comment_fk" FOREIGN KEY ("comment_id") REFERENCES "ticket_comments"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "attachments" DROP CONSTRAINT "attachments_comment_fk"`);
    await queryRunner.query(`ALTER TABLE "attachments" DROP CONSTRAINT "attachments_ticket_fk"`);
  }
}
