import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { startApp, TestApp } from '../support/app';
import { bearer, createSpace, createUser, TestSpace, TestUser } from '../support/factories';

const API = '/api/v1.0';
/** Lowered from 10,000 for this app, so a handful of rows crosses it. */
const EXACT_UP_TO = 5;

/** A word no other row holds (letters only: digits would split it). */
const word = () => `zt${randomBytes(6).toString('hex').replace(/\d/g, 'q')}`;

describe('POST /search total_relation', () => {
  let t: TestApp;
  let user: TestUser;
  let space: TestSpace;

  beforeAll(async () => {
    t = await startApp({ env: { SEARCH_EXACT_TOTAL_UP_TO: String(EXACT_UP_TO) } });
    user = await createUser(t.http, { first_name: 'Counter' });
    space = await createSpace(t.http, user);
  });
  afterAll(() => t.close());

  /** `count` products named after `name`, each name its own. */
  const products = (name: string, count: number) =>
    t.app
      .get(DataSource)
      .query(
        `INSERT INTO products (space_id, name) SELECT $1, $2 || ' ' || $4 || ' ' || g FROM generate_series(1, $3) g`,
        [space.id, name, count, word()],
      );

  async function search(
    body: Record<string, unknown>,
  ): Promise<{ items: unknown[]; total: number; total_relation: string }> {
    const res = await t.http.post(`${API}/search`).set(bearer(user)).send(body);
    if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  it('counts exactly up to the bound: eq', async () => {
    const exact = word();
    await products(exact, EXACT_UP_TO);
    const answer = await search({ query: exact, mode: 'keyword', limit: 2 });
    expect(answer).toEqual({ items: expect.any(Array), total: EXACT_UP_TO, total_relation: 'eq' });
    expect(answer.items).toHaveLength(2);
    // Served again from the cache, relation included.
    expect(await search({ query: exact, mode: 'keyword', limit: 2 })).toEqual(answer);
  });

  it('stops counting past the bound: total is the bound, gte', async () => {
    const many = word();
    await products(many, EXACT_UP_TO + 1);
    const keyword = await search({ query: many, mode: 'keyword', limit: 3 });
    expect(keyword).toEqual({ items: expect.any(Array), total: EXACT_UP_TO, total_relation: 'gte' });
    expect(keyword.items).toHaveLength(3);
    // All the items are still there to page through with a larger limit.
    expect((await search({ query: many, mode: 'keyword', limit: 100 })).items).toHaveLength(EXACT_UP_TO + 1);
    // Hybrid counts the keyword matches and the semantic ones they miss under the same bound.
    expect(await search({ query: many, limit: 3 })).toEqual(
      expect.objectContaining({ total: EXACT_UP_TO, total_relation: 'gte' }),
    );
    // Semantic answers its neighbours only: always exact.
    expect((await search({ query: many, mode: 'semantic', limit: 3 })).total_relation).toBe('eq');
    // A write makes the kept answer stale: one more match is still gte, none left is eq 0.
    await products(many, 1);
    expect(await search({ query: many, mode: 'keyword', limit: 3 })).toEqual(
      expect.objectContaining({ total: EXACT_UP_TO, total_relation: 'gte' }),
    );
    await t.app
      .get(DataSource)
      .query(`DELETE FROM products WHERE space_id = $1 AND name LIKE $2`, [space.id, `${many}%`]);
    expect(await search({ query: many, mode: 'keyword', limit: 3 })).toEqual({
      items: [],
      total: 0,
      total_relation: 'eq',
    });
  });
});
