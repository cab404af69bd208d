import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { startApp, TestApp } from '../support/app';
import { bearer, createSpace, createUser, TestSpace, TestUser } from '../support/factories';

const API = '/api/v1.0';

// PostgreSQL only: a writer holds a transaction open on a connection of its own while the app searches
// on others (the embedded database serves one session).
describe('POST /search answers kept between searches, with writers in flight', () => {
  let t: TestApp;
  let user: TestUser;
  let space: TestSpace;

  beforeAll(async () => {
    t = await startApp();
    user = await createUser(t.http, { first_name: 'Writer' });
    space = await createSpace(t.http, user);
    await t.app.get(OutboxDispatcher).drain();
    await t.app.get(JobRunner).drain();
  });
  afterAll(() => t.close());

  const total = async (query: string): Promise<number> => {
    const res = await t.http.post(`${API}/search`).set(bearer(user)).send({ query, mode: 'keyword' });
    if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { total: number }).total;
  };

  it('catches a write that commits after the answer was computed, in any order of transaction ids', async () => {
    const word = `zq${randomBytes(5).toString('hex').replace(/\d/g, 'k')}`;
    const writer = t.app.get(DataSource).createQueryRunner();
    const later = t.app.get(DataSource).createQueryRunner();
    await writer.connect();
    await later.connect();
    const insert = (runner: typeof writer, name: string) =>
      runner.query(
        `INSERT INTO products (space_id, name, description, product_type) VALUES ($1, $2, '', 'dataset')`,
        [space.id, name],
      );
    try {
      // The first writer takes its transaction id, then a second one takes a higher id and commits first.
      await writer.startTransaction();
      await insert(writer, `Early ${word}`);
      await later.startTransaction();
      await insert(later, `Late ${word}`);
      expect(await total(word)).toBe(0);
      expect(await total(word)).toBe(0);
      await later.commitTransaction();
      expect(await total(word)).toBe(1);
      // The answer kept now was computed while the lower id was still running: its commit is a change.
      expect(await total(word)).toBe(1);
      await writer.commitTransaction();
      expect(await total(word)).toBe(2);
    } finally {
      if (writer.isTransactionActive) await writer.rollbackTransaction();
      if (later.isTransactionActive) await later.rollbackTransaction();
      await writer.release();
      await later.release();
    }
  });
});
