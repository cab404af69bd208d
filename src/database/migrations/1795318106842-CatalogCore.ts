import { MigrationInterface, QueryRunner } from 'typeorm';

export class CatalogCore1795318106842 implements MigrationInterface {
  name = 'CatalogCore1795318106842';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Trigram indexes back the product search (`q`); the embedded database loads the extension at start.
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await queryRunner.query(
      `CREATE TABLE "spaces" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" text NOT NULL, "slug" text NOT NULL, "description" text, "features" jsonb NOT NULL DEFAULT '{}', "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_dbe542974aca57afcb60709d4c8" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "spaces_name_idx" ON "spaces"  ("name") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "spaces_slug_key" ON "spaces"  ("slug") `);
    await queryRunner.query(
      `CREATE TABLE "criticality_levels" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "name" text NOT NULL, "color" text NOT NULL, "sort_order" integer NOT NULL DEFAULT '0', "deleted_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "description" text, CONSTRAINT "PK_7060abf8c53802eddb7fa95e2b8" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "criticality_levels_space_name_key" ON "criticality_levels"  ("space_id", "name") WHERE deleted_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "criticality_levels_space_idx" ON "criticality_levels"  ("space_id", "sort_order") `,
    );
    await queryRunner.query(
      `CREATE TABLE "maintenance_statuses" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "name" text NOT NULL, "color" text NOT NULL, "sort_order" integer NOT NULL DEFAULT '0', "deleted_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "slug" text NOT NULL, CONSTRAINT "PK_9f65b32d36bf1ad9dade9f73255" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "maintenance_statuses_space_slug_key" ON "maintenance_statuses"  ("space_id", "slug") WHERE deleted_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "maintenance_statuses_space_name_key" ON "maintenance_statuses"  ("space_id", "name") WHERE deleted_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "maintenance_statuses_space_idx" ON "maintenance_statuses"  ("space_id", "sort_order") `,
    );
    await queryRunner.query(
      `CREATE TABLE "sensitivity_levels" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "name" text NOT NULL, "color" text NOT NULL, "sort_order" integer NOT NULL DEFAULT '0', "deleted_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "description" text, CONSTRAINT "PK_a0a3e3d4b5b72cbbe0e50e080a1" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "sensitivity_levels_space_name_key" ON "sensitivity_levels"  ("space_id", "name") WHERE deleted_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "sensitivity_levels_space_idx" ON "sensitivity_levels"  ("space_id", "sort_order") `,
    );
    await queryRunner.query(
      `CREATE TABLE "products" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "name" text NOT NULL, "description" text, "product_type" text NOT NULL DEFAULT 'dataset', "domain" text, "tags" text array NOT NULL DEFAULT '{}', "criticality_id" uuid, "sensitivity_id" uuid, "maintenance_status_id" uuid, "sla_freshness_minutes" integer, "attributes" jsonb NOT NULL DEFAULT '{}', "logging_event_types" text array NOT NULL DEFAULT '{}', "logging_last_reviewed" TIMESTAMP WITH TIME ZONE, "logging_notes" text, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_0806c755e0aca124e67c0cf6d7d" PRIMARY KEY ("id"))`,
    );
    // Raw-SQL indexes (declared with synchronize: false on the entity).
    await queryRunner.query(
      `CREATE UNIQUE INDEX "products_space_name_key" ON "products" ("space_id", lower("name"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "products_search_trgm_idx" ON "products" USING gin ((name || ' ' || coalesce(description, '')) gin_trgm_ops)`,
    );
    await queryRunner.query(`CREATE INDEX "products_tags_idx" ON "products" USING gin ("tags")`);
    await queryRunner.query(
      `CREATE INDEX "products_maintenance_status_idx" ON "products"  ("maintenance_status_id") `,
    );
    await queryRunner.query(`CREATE INDEX "products_sensitivity_idx" ON "products"  ("sensitivity_id") `);
    await queryRunner.query(`CREATE INDEX "products_criticality_idx" ON "products"  ("criticality_id") `);
    await queryRunner.query(
      `CREATE INDEX "products_space_type_idx" ON "products"  ("space_id", "product_type") `,
    );
    await queryRunner.query(
      `CREATE TABLE "access_requests" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "product_id" uuid NOT NULL, "requester_id" uuid NOT NULL, "access_level" text NOT NULL, "justification" text NOT NULL, "requested_until" TIMESTAMP WITH TIME ZONE, "status" text NOT NULL DEFAULT 'pending', "expires_at" TIMESTAMP WITH TIME ZONE, "decided_by" uuid, "decided_at" TIMESTAMP WITH TIME ZONE, "rejection_reason" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f89e51c15e3dbea13aa248fe128" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "access_requests_requester_idx" ON "access_requests"  ("requester_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "access_requests_product_idx" ON "access_requests"  ("product_id", "requester_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "access_requests_space_idx" ON "access_requests"  ("space_id", "status", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "lineage_edges" ("upstream_id" uuid NOT NULL, "downstream_id" uuid NOT NULL, "space_id" uuid NOT NULL, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f584c7afe147a166f9f70fe0a62" PRIMARY KEY ("upstream_id", "downstream_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "lineage_edges_downstream_idx" ON "lineage_edges"  ("downstream_id", "upstream_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "product_counts" ("space_id" uuid NOT NULL, "total" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_5a80fbf5514e865ac702c50060b" PRIMARY KEY ("space_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "product_roles" ("product_id" uuid NOT NULL, "user_id" uuid NOT NULL, "role" text NOT NULL, CONSTRAINT "PK_c29915b104ecf6901801f626243" PRIMARY KEY ("product_id", "user_id", "role"))`,
    );
    await queryRunner.query(`CREATE INDEX "product_roles_user_idx" ON "product_roles"  ("user_id", "role") `);
    await queryRunner.query(
      `CREATE TABLE "space_memberships" ("space_id" uuid NOT NULL, "user_id" uuid NOT NULL, "role" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_73d1e09af4083837ddd44f0aa7a" PRIMARY KEY ("space_id", "user_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "space_memberships_user_idx" ON "space_memberships"  ("user_id", "space_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "criticality_levels" ADD CONSTRAINT "criticality_levels_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "maintenance_statuses" ADD CONSTRAINT "maintenance_statuses_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sensitivity_levels" ADD CONSTRAINT "sensitivity_levels_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "products" ADD CONSTRAINT "products_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "products" ADD CONSTRAINT "products_criticality_fk" FOREIGN KEY ("criticality_id") REFERENCES "criticality_levels"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "products" ADD CONSTRAINT "products_sensitivity_fk" FOREIGN KEY ("sensitivity_id") REFERENCES "sensitivity_levels"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "products" ADD CONSTRAINT "products_maintenance_status_fk" FOREIGN KEY ("maintenance_status_id") REFERENCES "maintenance_statuses"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_requester_fk" FOREIGN KEY ("requester_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_edges" ADD CONSTRAINT "lineage_edges_upstream_fk" FOREIGN KEY ("upstream_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_edges" ADD CONSTRAINT "lineage_edges_downstream_fk" FOREIGN KEY ("downstream_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "product_counts" ADD CONSTRAINT "product_counts_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "product_roles" ADD CONSTRAINT "product_roles_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "product_roles" ADD CONSTRAINT "product_roles_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_memberships" ADD CONSTRAINT "space_memberships_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_memberships" ADD CONSTRAINT "space_memberships_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "space_memberships" DROP CONSTRAINT "space_memberships_user_fk"`);
    await queryRunner.query(`ALTER TABLE "space_memberships" DROP CONSTRAINT "space_memberships_space_fk"`);
    await queryRunner.query(`ALTER TABLE "product_roles" DROP CONSTRAINT "product_roles_user_fk"`);
    await queryRunner.query(`ALTER TABLE "product_roles" DROP CONSTRAINT "product_roles_product_fk"`);
    await queryRunner.query(`ALTER TABLE "product_counts" DROP CONSTRAINT "product_counts_space_fk"`);
    await queryRunner.query(`ALTER TABLE "lineage_edges" DROP CONSTRAINT "lineage_edges_downstream_fk"`);
    await queryRunner.query(`ALTER TABLE "lineage_edges" DROP CONSTRAINT "lineage_edges_upstream_fk"`);
    await queryRunner.query(`ALTER TABLE "access_requests" DROP CONSTRAINT "access_requests_requester_fk"`);
    await queryRunner.query(`ALTER TABLE "access_requests" DROP CONSTRAINT "access_requests_product_fk"`);
    await queryRunner.query(`ALTER TABLE "products" DROP CONSTRAINT "products_maintenance_status_fk"`);
    await queryRunner.query(`ALTER TABLE "products" DROP CONSTRAINT "products_sensitivity_fk"`);
    await queryRunner.query(`ALTER TABLE "products" DROP CONSTRAINT "products_criticality_fk"`);
    await queryRunner.query(`ALTER TABLE "products" DROP CONSTRAINT "products_space_fk"`);
    await queryRunner.query(`ALTER TABLE "sensitivity_levels" DROP CONSTRAINT "sensitivity_levels_space_fk"`);
    await queryRunner.query(
      `ALTER TABLE "maintenance_statuses" DROP CONSTRAINT "maintenance_statuses_space_fk"`,
    );
    await queryRunner.query(`ALTER TABLE "criticality_levels" DROP CONSTRAINT "criticality_levels_space_fk"`);
    await queryRunner.query(`DROP INDEX "public"."space_memberships_user_idx"`);
    await queryRunner.query(`DROP TABLE "space_memberships"`);
    await queryRunner.query(`DROP INDEX "public"."product_roles_user_idx"`);
    await queryRunner.query(`DROP TABLE "product_roles"`);
    await queryRunner.query(`DROP TABLE "product_counts"`);
    await queryRunner.query(`DROP INDEX "public"."lineage_edges_downstream_idx"`);
    await queryRunner.query(`DROP TABLE "lineage_edges"`);
    await queryRunner.query(`DROP INDEX "public"."access_requests_space_idx"`);
    await queryRunner.query(`DROP INDEX "public"."access_requests_product_idx"`);
    await queryRunner.query(`DROP INDEX "public"."access_requests_requester_idx"`);
    await queryRunner.query(`DROP TABLE "access_requests"`);
    await queryRunner.query(`DROP INDEX "public"."products_space_type_idx"`);
    await queryRunner.query(`DROP INDEX "public"."products_criticality_idx"`);
    await queryRunner.query(`DROP INDEX "public"."products_sensitivity_idx"`);
    await queryRunner.query(`DROP INDEX "public"."products_maintenance_status_idx"`);
    await queryRunner.query(`DROP INDEX "public"."products_tags_idx"`);
    await queryRunner.query(`DROP INDEX "public"."products_search_trgm_idx"`);
    await queryRunner.query(`DROP INDEX "public"."products_space_name_key"`);
    await queryRunner.query(`DROP TABLE "products"`);
    await queryRunner.query(`DROP INDEX "public"."sensitivity_levels_space_idx"`);
    await queryRunner.query(`DROP INDEX "public"."sensitivity_levels_space_name_key"`);
    await queryRunner.query(`DROP TABLE "sensitivity_levels"`);
    await queryRunner.query(`DROP INDEX "public"."maintenance_statuses_space_idx"`);
    await queryRunner.query(`DROP INDEX "public"."maintenance_statuses_space_name_key"`);
    await queryRunner.query(`DROP INDEX "public"."maintenance_statuses_space_slug_key"`);
    await queryRunner.query(`DROP TABLE "maintenance_statuses"`);
    await queryRunner.query(`DROP INDEX "public"."criticality_levels_space_idx"`);
    await queryRunner.query(`DROP INDEX "public"."criticality_levels_space_name_key"`);
    await queryRunner.query(`DROP TABLE "criticality_levels"`);
    await queryRunner.query(`DROP INDEX "public"."spaces_slug_key"`);
    await queryRunner.query(`DROP INDEX "public"."spaces_name_idx"`);
    await queryRunner.query(`DROP TABLE "spaces"`);
  }
}
