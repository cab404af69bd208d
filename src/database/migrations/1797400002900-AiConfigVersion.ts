import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The AI gateway keeps its configuration (provider configuration, model
 * profiles and routes, active prompts, budget limits) in each process's
 * memory (issue 29). `ai_config_version` holds one counter per database that
 * every write to those tables bumps in its own transaction, by a statement
 * trigger, so a process knows which version a snapshot it read belongs to,
 * and a change notified with its version (or found by a direct read of the
 * counter) is never served from an older snapshot.
 */
export class AiConfigVersion1797400002900 implements MigrationInterface {
  name = 'AiConfigVersion1797400002900';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "ai_config_version" ("id" boolean NOT NULL DEFAULT true, "version" bigint NOT NULL, CONSTRAINT "ai_config_version_pkey" PRIMARY KEY ("id"), CONSTRAINT "ai_config_version_one_row" CHECK ("id"))`,
    );
    await queryRunner.query(`INSERT INTO "ai_config_version" ("id", "version") VALUES (true, 1)`);
    await queryRunner.query(`
      CREATE FUNCTION ai_config_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE ai_config_version SET version = version + 1;
        RETURN NULL;
      END $$`);
    for (const table of [
      'ai_configs',
      'ai_model_profiles',
      'ai_model_routes',
      'ai_prompt_versions',
      'ai_budgets',
    ]) {
      await queryRunner.query(
        `CREATE TRIGGER ${table}_bump_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
           FOR EACH STATEMENT EXECUTE FUNCTION ai_config_bump()`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'ai_configs',
      'ai_model_profiles',
      'ai_model_routes',
      'ai_prompt_versions',
      'ai_budgets',
    ]) {
      await queryRunner.query(`DROP TRIGGER ${table}_bump_version ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION ai_config_bump()`);
    await queryRunner.query(`DROP TABLE "ai_config_version"`);
  }
}
