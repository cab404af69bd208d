import { MigrationInterface, QueryRunner } from 'typeorm';

export class QualityIncidents1795322472951 implements MigrationInterface {
  name = 'QualityIncidents1795322472951';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "source_systems" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "name" text NOT NULL, "system_type" text NOT NULL, "description" text, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_292c4957fa26e953fcbc5e71371" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "source_systems_space_name_key" ON "source_systems" ("space_id", lower("name"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "connectors" ("id" uuid NOT NULL, "space_id" uuid NOT NULL, "name" text NOT NULL, "connector_type" text NOT NULL, "source_system_id" uuid, "config_sealed" text NOT NULL, "host" text NOT NULL, "port" integer NOT NULL, "database_name" text NOT NULL, "last_tested_at" TIMESTAMP WITH TIME ZONE, "last_test_status" text, "last_synced_at" TIMESTAMP WITH TIME ZONE, "last_sync_status" text, "last_error" text, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c1334e2a68a8de86d1732a8e3fb" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "connectors_source_system_idx" ON "connectors"  ("source_system_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "connectors_space_idx" ON "connectors"  ("space_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "quality_checks" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "product_id" uuid NOT NULL, "connector_id" uuid, "name" text NOT NULL, "description" text, "check_type" text NOT NULL, "severity" text NOT NULL, "config" jsonb NOT NULL DEFAULT '{}', "schedule_cron" text, "is_enabled" boolean NOT NULL DEFAULT true, "next_run_at" TIMESTAMP WITH TIME ZONE, "last_run_at" TIMESTAMP WITH TIME ZONE, "last_status" text, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f9d52a9f227cd4f72dc1eef4367" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_checks_due_idx" ON "quality_checks"  ("next_run_at") WHERE next_run_at IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_checks_connector_idx" ON "quality_checks"  ("connector_id") `,
    );
    await queryRunner.query(`CREATE INDEX "quality_checks_product_idx" ON "quality_checks"  ("product_id") `);
    await queryRunner.query(
      `CREATE INDEX "quality_checks_space_idx" ON "quality_checks"  ("space_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "quality_incidents" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "title" text NOT NULL, "status" text NOT NULL DEFAULT 'open', "severity" text NOT NULL, "alert_count" integer NOT NULL DEFAULT '0', "root_cause" text, "root_product_id" uuid, "root_product_pinned" boolean NOT NULL DEFAULT false, "blast_radius_snapshot" jsonb NOT NULL DEFAULT '[]', "blast_radius_ids" uuid array NOT NULL DEFAULT '{}', "description" text, "downstream_notified_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "resolved_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_4aa5ead18eb275f56a322fc5555" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_incidents_root_product_idx" ON "quality_incidents"  ("root_product_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_incidents_space_status_idx" ON "quality_incidents"  ("space_id", "status", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_incidents_space_created_idx" ON "quality_incidents"  ("space_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "quality_alerts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "product_id" uuid NOT NULL, "check_id" uuid, "run_id" uuid, "incident_id" uuid NOT NULL, "alert_type" text NOT NULL, "severity" text NOT NULL, "status" text NOT NULL DEFAULT 'open', "message" text NOT NULL, "metadata" jsonb NOT NULL DEFAULT '{}', "acknowledged_at" TIMESTAMP WITH TIME ZONE, "acknowledged_by" uuid, "resolved_at" TIMESTAMP WITH TIME ZONE, "resolved_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_897aa9ae64eb39eaab9ba251541" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "quality_alerts_check_idx" ON "quality_alerts"  ("check_id") `);
    await queryRunner.query(
      `CREATE INDEX "quality_alerts_incident_product_idx" ON "quality_alerts"  ("product_id", "incident_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_alerts_incident_idx" ON "quality_alerts"  ("incident_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_alerts_space_status_idx" ON "quality_alerts"  ("space_id", "status", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_alerts_space_created_idx" ON "quality_alerts"  ("space_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "quality_check_runs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "check_id" uuid NOT NULL, "space_id" uuid NOT NULL, "status" text NOT NULL, "observed_value" double precision, "message" text, "source" text NOT NULL, "alert_id" uuid, "duration_ms" integer, "triggered_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_cefc62ea9c29455c4f2052229ed" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_check_runs_check_idx" ON "quality_check_runs"  ("check_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "quality_incident_events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "incident_id" uuid NOT NULL, "from_status" text NOT NULL, "to_status" text NOT NULL, "actor_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_73bc79cd14c4ac351b54f33da5e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_incident_events_incident_idx" ON "quality_incident_events"  ("incident_id", "created_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "source_systems" ADD CONSTRAINT "source_systems_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "connectors" ADD CONSTRAINT "connectors_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "connectors" ADD CONSTRAINT "connectors_source_system_fk" FOREIGN KEY ("source_system_id") REFERENCES "source_systems"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_checks" ADD CONSTRAINT "quality_checks_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_checks" ADD CONSTRAINT "quality_checks_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_checks" ADD CONSTRAINT "quality_checks_connector_fk" FOREIGN KEY ("connector_id") REFERENCES "connectors"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_incidents" ADD CONSTRAINT "quality_incidents_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_incidents" ADD CONSTRAINT "quality_incidents_root_product_fk" FOREIGN KEY ("root_product_id") REFERENCES "products"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_alerts" ADD CONSTRAINT "quality_alerts_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_alerts" ADD CONSTRAINT "quality_alerts_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_alerts" ADD CONSTRAINT "quality_alerts_check_fk" FOREIGN KEY ("check_id") REFERENCES "quality_checks"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_alerts" ADD CONSTRAINT "quality_alerts_incident_fk" FOREIGN KEY ("incident_id") REFERENCES "quality_incidents"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_check_runs" ADD CONSTRAINT "quality_check_runs_check_fk" FOREIGN KEY ("check_id") REFERENCES "quality_checks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_incident_events" ADD CONSTRAINT "quality_incident_events_incident_fk" FOREIGN KEY ("incident_id") REFERENCES "quality_incidents"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "quality_incident_events" DROP CONSTRAINT "quality_incident_events_incident_fk"`,
    );
    await queryRunner.query(`ALTER TABLE "quality_check_runs" DROP CONSTRAINT "quality_check_runs_check_fk"`);
    await queryRunner.query(`ALTER TABLE "quality_alerts" DROP CONSTRAINT "quality_alerts_incident_fk"`);
    await queryRunner.query(`ALTER TABLE "quality_alerts" DROP CONSTRAINT "quality_alerts_check_fk"`);
    await queryRunner.query(`ALTER TABLE "quality_alerts" DROP CONSTRAINT "quality_alerts_product_fk"`);
    await queryRunner.query(`ALTER TABLE "quality_alerts" DROP CONSTRAINT "quality_alerts_space_fk"`);
    await queryRunner.query(
      `ALTER TABLE "quality_incidents" DROP CONSTRAINT "quality_incidents_root_product_fk"`,
    );
    await queryRunner.query(`ALTER TABLE "quality_incidents" DROP CONSTRAINT "quality_incidents_space_fk"`);
    await queryRunner.query(`ALTER TABLE "quality_checks" DROP CONSTRAINT "quality_checks_connector_fk"`);
    await queryRunner.query(`ALTER TABLE "quality_checks" DROP CONSTRAINT "quality_checks_product_fk"`);
    await queryRunner.query(`ALTER TABLE "quality_checks" DROP CONSTRAINT "quality_checks_space_fk"`);
    await queryRunner.query(`ALTER TABLE "connectors" DROP CONSTRAINT "connectors_source_system_fk"`);
    await queryRunner.query(`ALTER TABLE "connectors" DROP CONSTRAINT "connectors_space_fk"`);
    await queryRunner.query(`ALTER TABLE "source_systems" DROP CONSTRAINT "source_systems_space_fk"`);
    await queryRunner.query(`DROP INDEX "public"."quality_incident_events_incident_idx"`);
    await queryRunner.query(`DROP TABLE "quality_incident_events"`);
    await queryRunner.query(`DROP INDEX "public"."quality_check_runs_check_idx"`);
    await queryRunner.query(`DROP TABLE "quality_check_runs"`);
    await queryRunner.query(`DROP INDEX "public"."quality_alerts_space_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."quality_alerts_space_status_idx"`);
    await queryRunner.query(`DROP INDEX "public"."quality_alerts_incident_idx"`);
    await queryRunner.query(`DROP INDEX "public"."quality_alerts_incident_product_idx"`);
    await queryRunner.query(`DROP INDEX "public"."quality_alerts_check_idx"`);
    await queryRunner.query(`DROP TABLE "quality_alerts"`);
    await queryRunner.query(`DROP INDEX "public"."quality_incidents_space_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."quality_incidents_space_status_idx"`);
    await queryRunner.query(`DROP INDEX "public"."quality_incidents_root_product_idx"`);
    await queryRunner.query(`DROP TABLE "quality_incidents"`);
    await queryRunner.query(`DROP INDEX "public"."quality_checks_space_idx"`);
    await queryRunner.query(`DROP INDEX "public"."quality_checks_product_idx"`);
    await queryRunner.query(`DROP INDEX "public"."quality_checks_connector_idx"`);
    await queryRunner.query(`DROP INDEX "public"."quality_checks_due_idx"`);
    await queryRunner.query(`DROP TABLE "quality_checks"`);
    await queryRunner.query(`DROP INDEX "public"."connectors_space_idx"`);
    await queryRunner.query(`DROP INDEX "public"."connectors_source_system_idx"`);
    await queryRunner.query(`DROP TABLE "connectors"`);
    await queryRunner.query(`DROP INDEX "public"."source_systems_space_name_key"`);
    await queryRunner.query(`DROP TABLE "source_systems"`);
  }
}
