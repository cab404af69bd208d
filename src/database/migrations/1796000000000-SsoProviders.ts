import { MigrationInterface, QueryRunner } from 'typeorm';

export class SsoProviders1796000000000 implements MigrationInterface {
  name = 'SsoProviders1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sso_providers" ("id" uuid NOT NULL, "name" text NOT NULL, "protocol" text NOT NULL, "is_enabled" boolean NOT NULL DEFAULT true, "domains" text array NOT NULL DEFAULT '{}', "default_role" text NOT NULL DEFAULT 'user', "jit_provisioning" boolean NOT NULL DEFAULT false, "oidc_issuer" text, "oidc_client_id" text, "oidc_client_secret_sealed" text, "oidc_scopes" text array, "saml_entry_point" text, "saml_issuer" text, "saml_idp_certificate" text, "saml_sign_authn_requests" boolean NOT NULL DEFAULT false, "sp_certificate" text, "sp_private_key_sealed" text, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_348feeee9ed68f9161a2f5ffeb0" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "sso_providers_created_idx" ON "sso_providers"  ("created_at", "id") `,
    );
    // Raw: TypeORM cannot declare a GIN index.
    await queryRunner.query(
      `CREATE INDEX "sso_providers_domains_idx" ON "sso_providers" USING gin ("domains")`,
    );
    await queryRunner.query(
      `CREATE TABLE "sso_assertions" ("provider_id" uuid NOT NULL, "assertion_id" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_f8813d4618fcc8ed989876965ee" PRIMARY KEY ("provider_id", "assertion_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "sso_assertions_expires_idx" ON "sso_assertions"  ("expires_at") `);
    await queryRunner.query(
      `CREATE TABLE "sso_login_codes" ("code_hash" text NOT NULL, "user_id" uuid NOT NULL, "provider_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_c1b82dd863d8dda56a999b98840" PRIMARY KEY ("code_hash"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "sso_login_codes_expires_idx" ON "sso_login_codes"  ("expires_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "sso_login_codes_provider_idx" ON "sso_login_codes"  ("provider_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "sso_pending_logins" ("key_hash" text NOT NULL, "provider_id" uuid NOT NULL, "nonce" text, "code_verifier_sealed" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_905028b3076d5099f08657eb376" PRIMARY KEY ("key_hash"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "sso_pending_logins_expires_idx" ON "sso_pending_logins"  ("expires_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "sso_pending_logins_provider_idx" ON "sso_pending_logins"  ("provider_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_assertions" ADD CONSTRAINT "sso_assertions_provider_fk" FOREIGN KEY ("provider_id") REFERENCES "sso_providers"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_login_codes" ADD CONSTRAINT "sso_login_codes_provider_fk" FOREIGN KEY ("provider_id") REFERENCES "sso_providers"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_pending_logins" ADD CONSTRAINT "sso_pending_logins_provider_fk" FOREIGN KEY ("provider_id") REFERENCES "sso_providers"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "sso_pending_logins" DROP CONSTRAINT "sso_pending_logins_provider_fk"`,
    );
    await queryRunner.query(`ALTER TABLE "sso_login_codes" DROP CONSTRAINT "sso_login_codes_provider_fk"`);
    await queryRunner.query(`ALTER TABLE "sso_assertions" DROP CONSTRAINT "sso_assertions_provider_fk"`);
    await queryRunner.query(`DROP INDEX "public"."sso_pending_logins_provider_idx"`);
    await queryRunner.query(`DROP INDEX "public"."sso_pending_logins_expires_idx"`);
    await queryRunner.query(`DROP TABLE "sso_pending_logins"`);
    await queryRunner.query(`DROP INDEX "public"."sso_login_codes_provider_idx"`);
    await queryRunner.query(`DROP INDEX "public"."sso_login_codes_expires_idx"`);
    await queryRunner.query(`DROP TABLE "sso_login_codes"`);
    await queryRunner.query(`DROP INDEX "public"."sso_assertions_expires_idx"`);
    await queryRunner.query(`DROP TABLE "sso_assertions"`);
    await queryRunner.query(`DROP INDEX "public"."sso_providers_domains_idx"`);
    await queryRunner.query(`DROP INDEX "public"."sso_providers_created_idx"`);
    await queryRunner.query(`DROP TABLE "sso_providers"`);
  }
}
