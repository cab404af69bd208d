import { DataSource } from 'typeorm';
import { startApp, TestApp } from '../support/app';

describe('schema drift', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('leaves nothing for the schema builder to change after the migrations ran', async () => {
    const dataSource = t.app.get(DataSource);
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('has run every migration file', async () => {
    expect(await t.app.get(DataSource).showMigrations()).toBe(false);
  });
});
