import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many risks each heat-map cell (space, likelihood, impact) holds, kept
 * by statement triggers on `risks`, so that the heat map reads 25 rows of one
 * index instead of counting the whole register on every request.
 *
 * - One trigger per operation (transition tables allow one each). An insert
 *   adds its rows per cell; a delete subtracts them (an update, never an
 *   insert: when a space is deleted, its cells go with it by cascade and a
 *   new row would refer to the deleted space); an update applies the net
 *   change per cell and writes nothing when no risk changed cell.
 * - Cells keep their row at zero: fewer writes, and the reader fills missing
 *   cells with zero anyway.
 * - The triggers fire ALWAYS, also where a session replicates
 *   (`session_replication_role = replica`): a change they miss would leave
 *   the counts wrong for good.
 * - Risk writes in the same cell of a space wait for each other on the cell's
 *   row until commit: one risk at a time, as the register's routes write.
 */
export class RiskHeatMapCells1797410000000 implements MigrationInterface {
  name = 'RiskHeatMapCells1797410000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "risk_heat_map_cells" ("space_id" uuid NOT NULL, "likelihood" text NOT NULL, "impact" text NOT NULL,
         "count" integer NOT NULL, CONSTRAINT "risk_heat_map_cells_pkey" PRIMARY KEY ("space_id", "likelihood", "impact"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "risk_heat_map_cells" ADD CONSTRAINT "risk_heat_map_cells_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `INSERT INTO "risk_heat_map_cells" ("space_id", "likelihood", "impact", "count")
       SELECT "space_id", "likelihood", "impact", count(*) FROM "risks" GROUP BY 1, 2, 3`,
    );
    await queryRunner.query(
      `CREATE FUNCTION "risk_heat_map_count"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'INSERT' THEN
           INSERT INTO risk_heat_map_cells AS c (space_id, likelihood, impact, count)
           SELECT space_id, likelihood, impact, count(*) FROM new_rows GROUP BY 1, 2, 3
           ON CONFLICT (space_id, likelihood, impact) DO UPDATE SET count = c.count + EXCLUDED.count;
         ELSIF TG_OP = 'DELETE' THEN
           UPDATE risk_heat_map_cells c SET count = c.count - o.n
             FROM (SELECT space_id, likelihood, impact, count(*) AS n FROM old_rows GROUP BY 1, 2, 3) o
            WHERE c.space_id = o.space_id AND c.likelihood = o.likelihood AND c.impact = o.impact;
         ELSIF TG_OP = 'UPDATE' THEN
           INSERT INTO risk_heat_map_cells AS c (space_id, likelihood, impact, count)
           SELECT space_id, likelihood, impact, sum(n) FROM (
             SELECT space_id, likelihood, impact, -1 AS n FROM old_rows
             UNION ALL SELECT space_id, likelihood, impact, 1 FROM new_rows) d
            GROUP BY 1, 2, 3 HAVING sum(n) <> 0
           ON CONFLICT (space_id, likelihood, impact) DO UPDATE SET count = c.count + EXCLUDED.count;
         ELSE
           DELETE FROM risk_heat_map_cells;
         END IF;
         RETURN NULL;
       END $$`,
    );
    const triggers: [string, string][] = [
      ['risks_heat_map_insert', 'AFTER INSERT ON "risks" REFERENCING NEW TABLE AS new_rows'],
      [
        'risks_heat_map_update',
        'AFTER UPDATE ON "risks" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows',
      ],
      ['risks_heat_map_delete', 'AFTER DELETE ON "risks" REFERENCING OLD TABLE AS old_rows'],
      ['risks_heat_map_truncate', 'AFTER TRUNCATE ON "risks"'],
    ];
    for (const [name, event] of triggers) {
      await queryRunner.query(
        `CREATE TRIGGER "${name}" ${event} FOR EACH STATEMENT EXECUTE FUNCTION "risk_heat_map_count"()`,
      );
      await queryRunner.query(`ALTER TABLE "risks" ENABLE ALWAYS TRIGGER "${name}"`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of ['insert', 'update', 'delete', 'truncate'])
      await queryRunner.query(`DROP TRIGGER "risks_heat_map_${name}" ON "risks"`);
    await queryRunner.query(`DROP FUNCTION "risk_heat_map_count"()`);
    await queryRunner.query(`DROP TABLE "risk_heat_map_cells"`);
  }
}
