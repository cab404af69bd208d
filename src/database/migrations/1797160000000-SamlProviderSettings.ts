import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SAML provider settings: the IdP's expected entity ID, the legacy SHA-1
 * allowance (off: SHA-1 signatures are refused from now on, also for
 * existing providers) and the NameID format AuthnRequests ask for (null:
 * `unspecified`).
 */
export class SamlProviderSettings1797160000000 implements MigrationInterface {
  name = 'SamlProviderSettings1797160000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "sso_providers" ADD "saml_idp_entity_id" text, ADD "saml_allow_sha1_signatures" boolean NOT NULL DEFAULT false, ADD "saml_name_id_format" text`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "sso_providers" DROP COLUMN "saml_name_id_format", DROP COLUMN "saml_allow_sha1_signatures", DROP COLUMN "saml_idp_entity_id"`,
    );
  }
}
