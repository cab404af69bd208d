import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat channels (issue 31): a space's Slack, Microsoft Teams and Google Chat
 * incoming webhooks (the URL sealed, its host in clear for display), and the
 * messages posted to them.
 *
 * - `chat_messages_pending_key`: at most one not-yet-attempted message per
 *   channel and incident, the one later events of the incident fold into.
 * - `chat_messages_channel_key_send_idx`: the latest message of a channel and
 *   incident, where the next one-minute window starts.
 */
export class ChatChannels1797400000000 implements MigrationInterface {
  name = 'ChatChannels1797400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "chat_channels" ("id" uuid NOT NULL, "space_id" uuid NOT NULL, "name" text NOT NULL, "kind" text NOT NULL, "url_sealed" text NOT NULL, "url_host" text NOT NULL, "event_types" text array NOT NULL, "min_severity" text NOT NULL, "is_enabled" boolean NOT NULL DEFAULT true, "failing_since" TIMESTAMP WITH TIME ZONE, "consecutive_failures" integer NOT NULL DEFAULT 0, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "chat_channels_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "chat_channels_space_idx" ON "chat_channels" ("space_id", "created_at")`,
    );
    await queryRunner.query(
      `ALTER TABLE "chat_channels" ADD CONSTRAINT "chat_channels_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TABLE "chat_messages" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "channel_id" uuid NOT NULL, "coalesce_key" text, "notice" jsonb NOT NULL, "status" text NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT 0, "send_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_status_code" integer, "last_error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "sent_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "chat_messages_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "chat_messages_pending_key" ON "chat_messages" ("channel_id", "coalesce_key") WHERE status = 'pending' AND coalesce_key IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "chat_messages_channel_key_send_idx" ON "chat_messages" ("channel_id", "coalesce_key", "send_at")`,
    );
    await queryRunner.query(
      `ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_channel_fk" FOREIGN KEY ("channel_id") REFERENCES "chat_channels"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "chat_messages"`);
    await queryRunner.query(`DROP TABLE "chat_channels"`);
  }
}
