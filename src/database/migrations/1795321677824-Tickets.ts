import { MigrationInterface, QueryRunner } from 'typeorm';

export class Tickets1795321677824 implements MigrationInterface {
  name = 'Tickets1795321677824';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "tickets" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "title" text NOT NULL, "description" text, "status" text NOT NULL DEFAULT 'open', "priority" text NOT NULL DEFAULT 'medium', "reporter_id" uuid NOT NULL, "assignee_id" uuid, "product_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_343bc942ae261cf7a1377f48fd0" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "tickets_product_idx" ON "tickets"  ("product_id") `);
    await queryRunner.query(`CREATE INDEX "tickets_reporter_idx" ON "tickets"  ("reporter_id") `);
    await queryRunner.query(
      `CREATE INDEX "tickets_assignee_idx" ON "tickets"  ("assignee_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "tickets_space_status_idx" ON "tickets"  ("space_id", "status", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "tickets_space_created_idx" ON "tickets"  ("space_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ticket_comments" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "ticket_id" uuid NOT NULL, "author_id" uuid NOT NULL, "body" text NOT NULL, "mentioned_user_ids" uuid array NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_811ed3b81dd8df6b9a92058d89c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ticket_comments_author_idx" ON "ticket_comments"  ("author_id") `);
    await queryRunner.query(
      `CREATE INDEX "ticket_comments_ticket_idx" ON "ticket_comments"  ("ticket_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ticket_incident_links" ("ticket_id" uuid NOT NULL, "incident_id" uuid NOT NULL, "linked_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_fd02fe0ca49831cf7abf21bb05d" PRIMARY KEY ("ticket_id", "incident_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ticket_incident_links_incident_idx" ON "ticket_incident_links"  ("incident_id", "ticket_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "tickets" ADD CONSTRAINT "tickets_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "tickets" ADD CONSTRAINT "tickets_reporter_fk" FOREIGN KEY ("reporter_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "tickets" ADD CONSTRAINT "tickets_assignee_fk" FOREIGN KEY ("assignee_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "tickets" ADD CONSTRAINT "tickets_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "ticket_comments" ADD CONSTRAINT "ticket_comments_ticket_fk" FOREIGN KEY ("ticket_id") REFERENCES "tickets"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "ticket_comments" ADD CONSTRAINT "ticket_comments_author_fk" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "ticket_incident_links" ADD CONSTRAINT "ticket_incident_links_ticket_fk" FOREIGN KEY ("ticket_id") REFERENCES "tickets"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "ticket_incident_links" DROP CONSTRAINT "ticket_incident_links_ticket_fk"`,
    );
    await queryRunner.query(`ALTER TABLE "ticket_comments" DROP CONSTRAINT "ticket_comments_author_fk"`);
    await queryRunner.query(`ALTER TABLE "ticket_comments" DROP CONSTRAINT "ticket_comments_ticket_fk"`);
    await queryRunner.query(`ALTER TABLE "tickets" DROP CONSTRAINT "tickets_product_fk"`);
    await queryRunner.query(`ALTER TABLE "tickets" DROP CONSTRAINT "tickets_assignee_fk"`);
    await queryRunner.query(`ALTER TABLE "tickets" DROP CONSTRAINT "tickets_reporter_fk"`);
    await queryRunner.query(`ALTER TABLE "tickets" DROP CONSTRAINT "tickets_space_fk"`);
    await queryRunner.query(`DROP INDEX "public"."ticket_incident_links_incident_idx"`);
    await queryRunner.query(`DROP TABLE "ticket_incident_links"`);
    await queryRunner.query(`DROP INDEX "public"."ticket_comments_ticket_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ticket_comments_author_idx"`);
    await queryRunner.query(`DROP TABLE "ticket_comments"`);
    await queryRunner.query(`DROP INDEX "public"."tickets_space_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."tickets_space_status_idx"`);
    await queryRunner.query(`DROP INDEX "public"."tickets_assignee_idx"`);
    await queryRunner.query(`DROP INDEX "public"."tickets_reporter_idx"`);
    await queryRunner.query(`DROP INDEX "public"."tickets_product_idx"`);
    await queryRunner.query(`DROP TABLE "tickets"`);
  }
}
