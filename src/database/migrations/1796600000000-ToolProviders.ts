import { MigrationInterface, QueryRunner } from 'typeorm';

export class ToolProviders1796600000000 implements MigrationInterface {
  name = 'ToolProviders1796600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "credentials" ("id" uuid NOT NULL, "name" text NOT NULL, "kind" text NOT NULL, "secret_sealed" text, "secret_set" boolean NOT NULL DEFAULT false, "is_active" boolean NOT NULL DEFAULT true, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1e38bc43be6697cdda548ad27a6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "credentials_created_by_idx" ON "credentials"  ("created_by") `);
    await queryRunner.query(`CREATE INDEX "credentials_created_idx" ON "credentials"  ("created_at", "id") `);
    await queryRunner.query(
      `CREATE TABLE "tool_providers" ("id" uuid NOT NULL, "slug" text NOT NULL, "name" text NOT NULL, "description" text NOT NULL DEFAULT '', "kind" text NOT NULL, "command_argv" text array NOT NULL, "cwd" text, "env" jsonb NOT NULL DEFAULT '{}', "credential_id" uuid, "secret_env_var" text, "tool_overrides" jsonb NOT NULL DEFAULT '{}', "skill_instructions" text NOT NULL DEFAULT '', "is_active" boolean NOT NULL DEFAULT true, "last_discovered_at" TIMESTAMP WITH TIME ZONE, "last_error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c3d34d2546cb210e838b02553e2" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "tool_providers_slug_uq" ON "tool_providers"  ("slug") `);
    await queryRunner.query(
      `CREATE INDEX "tool_providers_credential_idx" ON "tool_providers"  ("credential_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "tool_providers_created_idx" ON "tool_providers"  ("created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "tool_provider_tools" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "provider_id" uuid NOT NULL, "tool_name" text NOT NULL, "description" text NOT NULL DEFAULT '', "input_schema" json NOT NULL, "hints" jsonb NOT NULL DEFAULT '{}', "risk_level" text NOT NULL, "read_only" boolean NOT NULL, "writes_data" boolean NOT NULL, "returns_sensitive" boolean NOT NULL, "requires_confirmation" boolean NOT NULL, "scope_types" text array NOT NULL DEFAULT '{}', "is_enabled" boolean NOT NULL, "capability_id" text, "capability_compatible" boolean, "capability_validation_error" text, "discovered_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "tool_provider_tools_provider_name_uq" UNIQUE ("provider_id", "tool_name"), CONSTRAINT "PK_fde146819c83efab04391494c89" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "tool_provider_tools_capability_idx" ON "tool_provider_tools"  ("capability_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "space_capability_bindings" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "capability_id" text NOT NULL, "provider_tool_id" uuid NOT NULL, "provider_id" uuid NOT NULL, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "space_capability_bindings_space_capability_uq" UNIQUE ("space_id", "capability_id"), CONSTRAINT "PK_39d153a7cc70210aa915aa48b46" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "space_capability_bindings_tool_idx" ON "space_capability_bindings"  ("provider_tool_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "space_capability_bindings_provider_idx" ON "space_capability_bindings"  ("provider_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "space_capability_bindings_created_by_idx" ON "space_capability_bindings"  ("created_by") `,
    );
    await queryRunner.query(
      `CREATE TABLE "tool_grants" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "user_id" uuid NOT NULL, "space_id" uuid NOT NULL, "definition_id" uuid, "root_task_id" uuid NOT NULL, "binding_id" uuid NOT NULL, "provider_id" uuid NOT NULL, "consent_id" uuid NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_297fc07969739f2689182a63365" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "tool_grants_space_idx" ON "tool_grants"  ("space_id") `);
    await queryRunner.query(
      `CREATE INDEX "tool_grants_provider_active_idx" ON "tool_grants"  ("provider_id") WHERE revoked_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "tool_grants_binding_active_idx" ON "tool_grants"  ("binding_id") WHERE revoked_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "tool_grants_lookup_idx" ON "tool_grants"  ("user_id", "root_task_id", "binding_id") WHERE revoked_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "space_tool_enablements" ("space_id" uuid NOT NULL, "provider_id" uuid NOT NULL, "enabled" boolean NOT NULL, "max_risk_level" text NOT NULL DEFAULT 'read', "allowed_tool_names" text array, "updated_by" uuid, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_868119353c28f62bf6dc1cc446b" PRIMARY KEY ("space_id", "provider_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "space_tool_enablements_updated_by_idx" ON "space_tool_enablements"  ("updated_by") `,
    );
    await queryRunner.query(
      `CREATE INDEX "space_tool_enablements_provider_idx" ON "space_tool_enablements"  ("provider_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "credentials" ADD CONSTRAINT "credentials_created_by_fk" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "tool_providers" ADD CONSTRAINT "tool_providers_credential_fk" FOREIGN KEY ("credential_id") REFERENCES "credentials"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "tool_provider_tools" ADD CONSTRAINT "tool_provider_tools_provider_fk" FOREIGN KEY ("provider_id") REFERENCES "tool_providers"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_capability_bindings" ADD CONSTRAINT "space_capability_bindings_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_capability_bindings" ADD CONSTRAINT "space_capability_bindings_tool_fk" FOREIGN KEY ("provider_tool_id") REFERENCES "tool_provider_tools"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_capability_bindings" ADD CONSTRAINT "space_capability_bindings_provider_fk" FOREIGN KEY ("provider_id") REFERENCES "tool_providers"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_capability_bindings" ADD CONSTRAINT "space_capability_bindings_created_by_fk" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "tool_grants" ADD CONSTRAINT "tool_grants_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "tool_grants" ADD CONSTRAINT "tool_grants_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_tool_enablements" ADD CONSTRAINT "space_tool_enablements_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_tool_enablements" ADD CONSTRAINT "space_tool_enablements_provider_fk" FOREIGN KEY ("provider_id") REFERENCES "tool_providers"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_tool_enablements" ADD CONSTRAINT "space_tool_enablements_updated_by_fk" FOREIGN KEY ("updated_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "space_tool_enablements" DROP CONSTRAINT "space_tool_enablements_updated_by_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_tool_enablements" DROP CONSTRAINT "space_tool_enablements_provider_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_tool_enablements" DROP CONSTRAINT "space_tool_enablements_space_fk"`,
    );
    await queryRunner.query(`ALTER TABLE "tool_grants" DROP CONSTRAINT "tool_grants_space_fk"`);
    await queryRunner.query(`ALTER TABLE "tool_grants" DROP CONSTRAINT "tool_grants_user_fk"`);
    await queryRunner.query(
      `ALTER TABLE "space_capability_bindings" DROP CONSTRAINT "space_capability_bindings_created_by_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_capability_bindings" DROP CONSTRAINT "space_capability_bindings_provider_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_capability_bindings" DROP CONSTRAINT "space_capability_bindings_tool_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "space_capability_bindings" DROP CONSTRAINT "space_capability_bindings_space_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "tool_provider_tools" DROP CONSTRAINT "tool_provider_tools_provider_fk"`,
    );
    await queryRunner.query(`ALTER TABLE "tool_providers" DROP CONSTRAINT "tool_providers_credential_fk"`);
    await queryRunner.query(`ALTER TABLE "credentials" DROP CONSTRAINT "credentials_created_by_fk"`);
    await queryRunner.query(`DROP INDEX "public"."space_tool_enablements_provider_idx"`);
    await queryRunner.query(`DROP INDEX "public"."space_tool_enablements_updated_by_idx"`);
    await queryRunner.query(`DROP TABLE "space_tool_enablements"`);
    await queryRunner.query(`DROP INDEX "public"."tool_grants_lookup_idx"`);
    await queryRunner.query(`DROP INDEX "public"."tool_grants_binding_active_idx"`);
    await queryRunner.query(`DROP INDEX "public"."tool_grants_provider_active_idx"`);
    await queryRunner.query(`DROP INDEX "public"."tool_grants_space_idx"`);
    await queryRunner.query(`DROP TABLE "tool_grants"`);
    await queryRunner.query(`DROP INDEX "public"."space_capability_bindings_created_by_idx"`);
    await queryRunner.query(`DROP INDEX "public"."space_capability_bindings_provider_idx"`);
    await queryRunner.query(`DROP INDEX "public"."space_capability_bindings_tool_idx"`);
    await queryRunner.query(`DROP TABLE "space_capability_bindings"`);
    await queryRunner.query(`DROP INDEX "public"."tool_provider_tools_capability_idx"`);
    await queryRunner.query(`DROP TABLE "tool_provider_tools"`);
    await queryRunner.query(`DROP INDEX "public"."tool_providers_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."tool_providers_credential_idx"`);
    await queryRunner.query(`DROP INDEX "public"."tool_providers_slug_uq"`);
    await queryRunner.query(`DROP TABLE "tool_providers"`);
    await queryRunner.query(`DROP INDEX "public"."credentials_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."credentials_created_by_idx"`);
    await queryRunner.query(`DROP TABLE "credentials"`);
  }
}
