import { MigrationInterface, QueryRunner } from 'typeorm';

export class StandardsAndEmbeddings1796400000000 implements MigrationInterface {
  name = 'StandardsAndEmbeddings1796400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "embedding_configs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "scope" text NOT NULL, "instance_id" uuid, "provider" text NOT NULL, "model_name" text NOT NULL, "dimensions" integer NOT NULL, "api_key_sealed" text, "api_base_url" text, "is_enabled" boolean NOT NULL DEFAULT true, "index_version" text NOT NULL DEFAULT 'v1', "status" text NOT NULL DEFAULT 'active', "updated_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_fac49686c9e92fc55df40a1879f" UNIQUE ("scope"), CONSTRAINT "PK_ec0ffcb5edec3d4a0e454f3f9cf" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "embedding_reindex_runs" ("scope" text NOT NULL, "item_type" text NOT NULL, "run_id" uuid NOT NULL, "state" text NOT NULL, "total" integer NOT NULL DEFAULT '0', "done" integer NOT NULL DEFAULT '0', "failed" integer NOT NULL DEFAULT '0', "cursor" uuid, "fingerprint" text NOT NULL, "last_error" text, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_b393145cb81803441a9ceed758a" PRIMARY KEY ("scope", "item_type"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "item_embeddings" ("item_type" text NOT NULL, "item_id" uuid NOT NULL, "space_id" uuid NOT NULL, "dimensions" integer NOT NULL, "embedding" real array NOT NULL, "content_hash" text NOT NULL, "index_version" text NOT NULL, "source_updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "embedded_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1a831070177b39811544372a6b0" PRIMARY KEY ("item_type", "item_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "item_embeddings_type_dimensions_idx" ON "item_embeddings"  ("item_type", "dimensions") `,
    );
    await queryRunner.query(
      `CREATE INDEX "item_embeddings_space_type_idx" ON "item_embeddings"  ("space_id", "item_type", "dimensions") `,
    );
    await queryRunner.query(
      `CREATE TABLE "standard_pages" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "title" text NOT NULL, "body" text NOT NULL DEFAULT '', "status" text NOT NULL DEFAULT 'draft', "published_at" TIMESTAMP WITH TIME ZONE, "created_by" uuid, "updated_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5c86bb85638d20a092380978cf5" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "standard_pages_published_id_idx" ON "standard_pages"  ("id") WHERE status = 'published'`,
    );
    await queryRunner.query(
      `CREATE INDEX "standard_pages_space_updated_idx" ON "standard_pages"  ("space_id", "updated_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "standard_pages_space_status_updated_idx" ON "standard_pages"  ("space_id", "status", "updated_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "item_embeddings" ADD CONSTRAINT "item_embeddings_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "standard_pages" ADD CONSTRAINT "standard_pages_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "standard_pages" DROP CONSTRAINT "standard_pages_space_fk"`);
    await queryRunner.query(`ALTER TABLE "item_embeddings" DROP CONSTRAINT "item_embeddings_space_fk"`);
    await queryRunner.query(`DROP INDEX "public"."standard_pages_space_status_updated_idx"`);
    await queryRunner.query(`DROP INDEX "public"."standard_pages_space_updated_idx"`);
    await queryRunner.query(`DROP INDEX "public"."standard_pages_published_id_idx"`);
    await queryRunner.query(`DROP TABLE "standard_pages"`);
    await queryRunner.query(`DROP INDEX "public"."item_embeddings_space_type_idx"`);
    await queryRunner.query(`DROP INDEX "public"."item_embeddings_type_dimensions_idx"`);
    await queryRunner.query(`DROP TABLE "item_embeddings"`);
    await queryRunner.query(`DROP TABLE "embedding_reindex_runs"`);
    await queryRunner.query(`DROP TABLE "embedding_configs"`);
  }
}
