import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OpenLineage ingestion (issue 30):
 *
 * - `openlineage_events`: the raw events as received, one row per event,
 *   unique on (run_id, event_type, event_time) so a resent run event is
 *   stored once; `space_ids` are the spaces it was authorised for. The
 *   processor claims unprocessed rows by event time (partial index), the
 *   retention job deletes by `received_at`.
 * - `openlineage_namespace_mappings`: which OpenLineage namespaces a space
 *   takes events for, looked up by namespace on every request.
 * - `dataset_identities`: the OpenLineage identity (namespace, name) of a
 *   dataset product, written by connector sync and by ingestion. Existing
 *   connector-harvested products get theirs here.
 * - `lineage_edges` carry the job that produced them; `lineage_column_edges`
 *   hold column lineage (output column <- input product and column).
 * - `product_schema_changes`: columns added, removed or retyped between two
 *   schema facets of a product.
 */
export class OpenLineage1797300000001 implements MigrationInterface {
  name = 'OpenLineage1797300000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "openlineage_events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "kind" text NOT NULL, "run_id" uuid, "event_type" text, "event_time" TIMESTAMP WITH TIME ZONE NOT NULL, "payload" jsonb NOT NULL, "actor_user_id" uuid NOT NULL, "space_ids" uuid array NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "processed_at" TIMESTAMP WITH TIME ZONE, "outcome" jsonb, "attempts" integer NOT NULL DEFAULT 0, "last_error" text, CONSTRAINT "openlineage_events_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "openlineage_events_run_key" ON "openlineage_events" ("run_id", "event_type", "event_time")`,
    );
    await queryRunner.query(
      `CREATE INDEX "openlineage_events_pending_idx" ON "openlineage_events" ("event_time") WHERE processed_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "openlineage_events_received_idx" ON "openlineage_events" ("received_at")`,
    );

    await queryRunner.query(
      `CREATE TABLE "openlineage_namespace_mappings" ("space_id" uuid NOT NULL, "namespace" text NOT NULL, "create_products" boolean NOT NULL DEFAULT false, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "openlineage_namespace_mappings_pkey" PRIMARY KEY ("space_id", "namespace"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "openlineage_namespace_mappings_namespace_idx" ON "openlineage_namespace_mappings" ("namespace", "space_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "openlineage_namespace_mappings" ADD CONSTRAINT "openlineage_namespace_mappings_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );

    await queryRunner.query(
      `CREATE TABLE "dataset_identities" ("space_id" uuid NOT NULL, "namespace" text NOT NULL, "name" text NOT NULL, "product_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "dataset_identities_pkey" PRIMARY KEY ("space_id", "namespace", "name"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "dataset_identities_product_idx" ON "dataset_identities" ("product_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "dataset_identities" ADD CONSTRAINT "dataset_identities_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Products harvested before: their identity from the connector's host, port and database.
    await queryRunner.query(
      `INSERT INTO "dataset_identities" ("space_id", "namespace", "name", "product_id")
       SELECT p."space_id", 'postgres://' || lower(c."host") || ':' || c."port",
              c."database_name" || '.' || (p."attributes"->'schema'->>'source_schema') || '.' || (p."attributes"->'schema'->>'source_table'),
              p."id"
         FROM "products" p
         JOIN "connectors" c ON c."id"::text = p."attributes"->'source'->>'connector_id' AND c."space_id" = p."space_id"
        WHERE p."attributes"->'schema'->>'source_schema' IS NOT NULL AND p."attributes"->'schema'->>'source_table' IS NOT NULL
       ON CONFLICT DO NOTHING`,
    );

    await queryRunner.query(`ALTER TABLE "lineage_edges" ADD "job_namespace" text`);
    await queryRunner.query(`ALTER TABLE "lineage_edges" ADD "job_name" text`);

    await queryRunner.query(
      `CREATE TABLE "lineage_column_edges" ("downstream_id" uuid NOT NULL, "downstream_column" text NOT NULL, "upstream_id" uuid NOT NULL, "upstream_column" text NOT NULL, "space_id" uuid NOT NULL, "job_namespace" text, "job_name" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "lineage_column_edges_pkey" PRIMARY KEY ("downstream_id", "downstream_column", "upstream_id", "upstream_column"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "lineage_column_edges_upstream_idx" ON "lineage_column_edges" ("upstream_id", "downstream_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_column_edges" ADD CONSTRAINT "lineage_column_edges_downstream_fk" FOREIGN KEY ("downstream_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_column_edges" ADD CONSTRAINT "lineage_column_edges_upstream_fk" FOREIGN KEY ("upstream_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );

    await queryRunner.query(
      `CREATE TABLE "product_schema_changes" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "product_id" uuid NOT NULL, "changed_at" TIMESTAMP WITH TIME ZONE NOT NULL, "added" jsonb NOT NULL, "removed" jsonb NOT NULL, "changed" jsonb NOT NULL, "run_id" uuid, "job_namespace" text, "job_name" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "product_schema_changes_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "product_schema_changes_product_idx" ON "product_schema_changes" ("product_id", "changed_at")`,
    );
    await queryRunner.query(
      `ALTER TABLE "product_schema_changes" ADD CONSTRAINT "product_schema_changes_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "product_schema_changes"`);
    await queryRunner.query(`DROP TABLE "lineage_column_edges"`);
    await queryRunner.query(`ALTER TABLE "lineage_edges" DROP COLUMN "job_name"`);
    await queryRunner.query(`ALTER TABLE "lineage_edges" DROP COLUMN "job_namespace"`);
    await queryRunner.query(`DROP TABLE "dataset_identities"`);
    await queryRunner.query(`DROP TABLE "openlineage_namespace_mappings"`);
    await queryRunner.query(`DROP TABLE "openlineage_events"`);
  }
}
