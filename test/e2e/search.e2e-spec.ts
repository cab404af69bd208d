import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { SEARCH_WATCHED_TABLES } from '../../src/database/migrations/1797100000000-SearchChanges';
import { SearchCache } from '../../src/modules/search/search.cache';
import { RANK_WINDOW } from '../../src/modules/search/search.queries';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { startApp, TestApp } from '../support/app';
import { pinLimiterClock, QUIET_MINUTE } from '../support/limiter-clock';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  rootUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import { freePort } from '../support/server-process';

const API = '/api/v1.0';
// The suite boots more apps on the same database (other embedding settings): one secret, so tokens hold in each.
const JWT_SECRET = `search-suite-${randomBytes(24).toString('hex')}`;

interface Item {
  type: string;
  id: string;
  space_slug: string;
  title: string;
  snippet: string;
  score: number;
}

/** A word no other suite writes: every search below is about this run's rows only. */
const word = () =>
  'zq' +
  [...randomBytes(8)]
    .map((b) => 'abcdefghijklmnopqrstuvwxyz'[b % 26])
    .join('')
    .slice(0, 8);

describe('POST /search', () => {
  let t: TestApp;
  let root: TestUser;
  let alice: TestUser; // admin of space A
  let vera: TestUser; // viewer of space A
  let bob: TestUser; // admin of space B
  let ivan: TestUser; // in no space: the input checks (each caller has 30 searches a minute)
  let a: TestSpace;
  let b: TestSpace;
  const w = word();
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startApp({ env: { JWT_SECRET } });
    root = await rootUser(t.http);
    [alice, vera, bob, ivan] = await Promise.all([
      createUser(t.http, { first_name: 'Alice' }),
      createUser(t.http, { first_name: 'Vera' }),
      createUser(t.http, { first_name: 'Bob' }),
      createUser(t.http, { first_name: 'Ivan' }),
    ]);
    [a, b] = await Promise.all([createSpace(t.http, alice), createSpace(t.http, bob)]);
    await addMember(t.http, alice, a, vera, 'viewer');

    const product = await createProduct(t.http, alice, a, {
      name: `Orders ${w}alpha`,
      description: `Daily <script>alert(1)</script> orders & refunds of the "${w}" shop`,
      tags: ['sales'],
    });
    ids.product = product.id;
    ids.described = (
      await createProduct(t.http, alice, a, { name: 'Refund ledger', description: `Mentions ${w} once` })
    ).id;
    ids.other = (await createProduct(t.http, bob, b, { name: `Secret ${w} forecasts` })).id;

    const post = async (url: string, body: Record<string, unknown>, status = 201) => {
      const res = await t.http.post(`${API}${url}`).set(bearer(alice)).send(body);
      if (res.status !== status) throw new Error(`${url}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as { id: string; incident_id?: string };
    };
    ids.risk = (
      await post(`/catalog/spaces/${a.slug}/risk-register`, {
        title: `Stale ${w} numbers`,
        category: 'data_quality',
        likelihood: 'possible',
        impact: 'moderate',
      })
    ).id;
    const policy = {
      policy_type: 'ownership',
      rule_expression: 'size(product.owners) > 0',
      severity: 'high',
    };
    ids.policy = (await post(`/spaces/${a.slug}/policies`, { name: `${w} ownership`, ...policy })).id;
    ids.archived = (await post(`/spaces/${a.slug}/policies`, { name: `${w} retired rule`, ...policy })).id;
    await post(`/spaces/${a.slug}/policies/${ids.archived}/archive`, {}, 200);
    ids.ticket = (
      await post('/issues/tickets', { space_id: a.id, title: `Broken ${w} dashboard`, priority: 'high' })
    ).id;
    const alert = await post(`/spaces/${a.slug}/alerts`, {
      product_id: ids.described,
      alert_type: 'anomaly',
      severity: 'high',
      message: 'Odd values',
    });
    ids.incident = alert.incident_id!;
    const pages = `/spaces/${a.slug}/standards`;
    ids.page = (
      await post(pages, {
        title: `Naming ${w} conventions`,
        body: 'Tables are named in snake_case after the business entity they hold.',
        status: 'published',
      })
    ).id;
    ids.draft = (await post(pages, { title: `Retention ${w} draft`, body: 'Not decided yet.' })).id;
    const patched = await t.http
      .patch(`${API}/spaces/${a.slug}/incidents/${ids.incident}`)
      .set(bearer(alice))
      .send({ description: `The ${w} feed stalled` });
    expect(patched.status).toBe(200);
    // The semantic index follows product and standards-page events.
    await t.app.get(OutboxDispatcher).drain();
    await t.app.get(JobRunner).drain();
  });
  afterAll(() => t.close());

  const search = (user: TestUser, body: Record<string, unknown>) =>
    t.http.post(`${API}/search`).set(bearer(user)).send(body);

  async function found(
    user: TestUser,
    body: Record<string, unknown>,
  ): Promise<{ items: Item[]; total: number; total_relation: 'eq' | 'gte' }> {
    const res = await search(user, body);
    if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  const keyed = (items: Item[]) => items.map((item) => `${item.type}:${item.id}`).sort();

  describe('keyword mode', () => {
    it('finds every type a member may read, with its space, title, snippet and score', async () => {
      const { items, total } = await found(vera, { query: w, mode: 'keyword' });
      expect(keyed(items)).toEqual(
        [
          `product:${ids.product}`,
          `product:${ids.described}`,
          `standard_page:${ids.page}`,
          `risk:${ids.risk}`,
          `policy:${ids.policy}`,
          `incident:${ids.incident}`,
          `ticket:${ids.ticket}`,
        ].sort(),
      );
      expect(total).toBe(7);
      const risk = items.find((item) => item.type === 'risk')!;
      expect(risk).toEqual({
        type: 'risk',
        id: ids.risk,
        space_slug: a.slug,
        title: `Stale ${w} numbers`,
        snippet: `Stale <mark>${w}</mark> numbers`,
        score: expect.any(Number),
      });
      for (const item of items) expect(item.score).toBeGreaterThan(0);
      for (const item of items) expect(item.score).toBeLessThan(1);
      // Best first.
      const scores = items.map((item) => item.score);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));
    });

    it('ranks a match in the name above one in the description', async () => {
      const { items } = await found(alice, { query: w, mode: 'keyword', types: ['product'] });
      expect(items.map((item) => item.id)).toEqual([ids.product, ids.described]);
      expect(items[0].score).toBeGreaterThan(items[1].score);
    });

    it('answers HTML-escaped snippets with the matches marked', async () => {
      const { items } = await found(alice, { query: `refunds ${w}`, mode: 'keyword', types: ['product'] });
      expect(items).toHaveLength(1);
      expect(items[0].snippet).toBe(
        `Daily alert(1) orders &amp; <mark>refunds</mark> of the &quot;<mark>${w}</mark>&quot; shop`,
      );
      expect(items[0].snippet.replace(/<\/?mark>/g, '')).not.toMatch(/[<>]/);
    });

    it('matches the last word as a prefix while it is typed, and honours phrases and exclusions', async () => {
      const prefix = await found(alice, { query: `orders ${w}al`, mode: 'keyword' });
      expect(prefix.items.map((item) => item.id)).toEqual([ids.product]);
      expect(prefix.items[0].snippet).toContain('<mark>orders</mark>');
      const phrase = await found(alice, { query: `"stale ${w}"`, mode: 'keyword' });
      expect(phrase.items.map((item) => item.id)).toEqual([ids.risk]);
      const excluded = await found(alice, {
        query: `${w} -stale -broken -ownership -feed -naming -retention`,
        mode: 'keyword',
      });
      expect(keyed(excluded.items)).toEqual([`product:${ids.product}`, `product:${ids.described}`].sort());
      const either = await found(alice, { query: `stale${w} or "broken ${w}"`, mode: 'keyword' });
      expect(either.items.map((item) => item.id)).toEqual([ids.ticket]);
    });

    it('finds text written later: the search document follows updates', async () => {
      const fresh = word();
      const res = await t.http
        .put(`${API}/catalog/spaces/${a.slug}/risk-register/${ids.risk}`)
        .set(bearer(alice))
        .send({ description: `Now about ${fresh}` });
      expect(res.status).toBe(200);
      const { items } = await found(alice, { query: fresh, mode: 'keyword' });
      expect(items.map((item) => [item.id, item.snippet])).toEqual([
        [ids.risk, `Now about <mark>${fresh}</mark>`],
      ]);
    });

    it('narrows to types, and cuts to limit without changing the total', async () => {
      const risks = await found(alice, { query: w, mode: 'keyword', types: ['risk', 'ticket', 'risk'] });
      expect(keyed(risks.items)).toEqual([`risk:${ids.risk}`, `ticket:${ids.ticket}`].sort());
      expect(risks.total).toBe(2);
      const two = await found(alice, { query: w, mode: 'keyword', limit: 2 });
      expect(two.items).toHaveLength(2);
      expect(two.total).toBe(8); // drafts included: alice may edit space A
    });

    it.each([
      '"unbalanced',
      "o'brien's",
      '-',
      'or or or',
      'a:* & b | !c <-> (d)',
      '\\ \' "" ::',
      '<script>alert(1)</script>',
      '%_*?[]{}',
      'ünïcödé 数据 données',
      'x'.repeat(200),
    ])('takes any text as words, never as syntax: %j', async (query) => {
      const res = await search(bob, { query, mode: 'keyword' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: expect.any(Array), total: expect.any(Number), total_relation: 'eq' });
    });

    it('answers 20 items when no limit is given', async () => {
      const lee = await createUser(t.http, { first_name: 'Lee' });
      const space = await createSpace(t.http, lee);
      const many = word();
      await t.app
        .get(DataSource)
        .query(
          `INSERT INTO products (space_id, name) SELECT $1, $2 || ' item ' || g FROM generate_series(1, 25) g`,
          [space.id, many],
        );
      const keyword = await found(lee, { query: many, mode: 'keyword' });
      expect(keyword.items).toHaveLength(20);
      expect(keyword.total).toBe(25);
      expect((await found(lee, { query: many })).items).toHaveLength(20);
    });

    it('answers nothing for a query without words', async () => {
      expect(await found(alice, { query: '!!! ---', mode: 'keyword' })).toEqual({
        items: [],
        total: 0,
        total_relation: 'eq',
      });
    });
  });

  describe('the search documents and the ranking window', () => {
    // A caller of its own: each caller has 30 searches a minute.
    let kim: TestUser;
    beforeAll(async () => {
      kim = await createUser(t.http, { first_name: 'Kim' });
    });

    it('follows deletes, archiving and unarchiving', async () => {
      const fresh = word();
      // A space of its own: the semantic tests below count the neighbours in space A.
      const space = await createSpace(t.http, kim);
      const gone = await createProduct(t.http, kim, space, { name: `Gone ${fresh}` });
      const kept = await createProduct(t.http, kim, space, { name: `Kept ${fresh}` });
      expect((await found(kim, { query: fresh, mode: 'keyword' })).total).toBe(2);
      const deleted = await t.http
        .delete(`${API}/catalog/spaces/${space.slug}/products/${gone.id}`)
        .set(bearer(kim));
      expect(deleted.status).toBe(204);
      expect(await found(kim, { query: fresh, mode: 'keyword' })).toEqual({
        items: [expect.objectContaining({ id: kept.id })],
        total: 1,
        total_relation: 'eq',
      });

      const archived = await found(root, { query: `${w} retired`, mode: 'keyword', types: ['policy'] });
      expect(archived).toEqual({ items: [], total: 0, total_relation: 'eq' });
      const back = await t.http
        .post(`${API}/spaces/${a.slug}/policies/${ids.archived}/unarchive`)
        .set(bearer(alice))
        .send({});
      expect(back.status).toBe(200);
      const unarchived = await found(root, { query: `${w} retired`, mode: 'keyword', types: ['policy'] });
      expect(unarchived.items.map((item) => item.id)).toEqual([ids.archived]);
      const again = await t.http
        .post(`${API}/spaces/${a.slug}/policies/${ids.archived}/archive`)
        .set(bearer(alice))
        .send({});
      expect(again.status).toBe(200);
      expect(await found(root, { query: `${w} retired`, mode: 'keyword', types: ['policy'] })).toEqual({
        items: [],
        total: 0,
        total_relation: 'eq',
      });
    });

    it(`counts every match past ${RANK_WINDOW}, and ranks the title matches first among them`, async () => {
      const broad = await createSpace(t.http, kim);
      const many = word();
      // Volume through SQL (the triggers keep the search documents as for any write), before the title
      // matches: in row order, the window would be full before reaching them.
      await t.app.get(DataSource).query(
        `INSERT INTO products (space_id, name, description)
         SELECT $1, 'Bulk ' || g, 'Mentions ' || $2 || ' in passing' FROM generate_series(1, $3) g`,
        [broad.id, many, RANK_WINDOW + 1],
      );
      const titled = [];
      for (const name of [`${many} ledger`, `Daily ${many}`, `${many} forecast`])
        titled.push((await createProduct(t.http, kim, broad, { name })).id);

      const { items, total } = await found(kim, {
        query: many,
        mode: 'keyword',
        space_slug: broad.slug,
        limit: 5,
      });
      expect(total).toBe(RANK_WINDOW + 4);
      expect(
        items
          .slice(0, 3)
          .map((item) => item.id)
          .sort(),
      ).toEqual([...titled].sort());
      expect(items[3].title).toMatch(/^Bulk /);
      expect(items[3].score).toBeLessThan(items[2].score);
      const scores = items.map((item) => item.score);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));
      // The same counts for a member searching all their spaces, and none of it for a stranger.
      expect((await found(vera, { query: many, mode: 'keyword' })).total).toBe(0);
      expect((await found(kim, { query: many, mode: 'keyword', types: ['product'] })).total).toBe(
        RANK_WINDOW + 4,
      );
    });

    it(`ranks every match by ts_rank_cd up to ${RANK_WINDOW} of them, titles or not`, async () => {
      const few = word();
      const space = await createSpace(t.http, kim);
      const named = await createProduct(t.http, kim, space, { name: `${few} report` });
      // Four mentions in the description (weight B, 0.4 each) outweigh one in the name (weight A, 1.0).
      const described = await createProduct(t.http, kim, space, {
        name: 'Weekly report',
        description: `${few} in, ${few} out, ${few} again and ${few} once more`,
      });
      const { items } = await found(kim, { query: few, mode: 'keyword', space_slug: space.slug });
      expect(items.map((item) => item.id)).toEqual([described.id, named.id]);
    });
  });

  describe('who sees what', () => {
    it("never shows or counts another space's items to a member", async () => {
      const ofBob = await found(bob, { query: w, mode: 'keyword' });
      expect(ofBob).toEqual({
        items: [expect.objectContaining({ id: ids.other, space_slug: b.slug })],
        total: 1,
        total_relation: 'eq',
      });
      const ofAlice = await found(alice, { query: `secret ${w}`, mode: 'keyword' });
      expect(ofAlice).toEqual({ items: [], total: 0, total_relation: 'eq' });
    });

    it('shows a superadmin every space', async () => {
      const all = await found(root, { query: w, mode: 'keyword' });
      expect(all.total).toBe(9);
      expect(all.items.map((item) => item.id)).toContain(ids.other);
    });

    it('narrows to one space with space_slug, 404 for a space the caller does not read', async () => {
      const onlyB = await found(root, { query: w, mode: 'keyword', space_slug: b.slug });
      expect(onlyB.items.map((item) => item.id)).toEqual([ids.other]);
      expect(onlyB.total).toBe(1);
      const onlyA = await found(vera, { query: w, mode: 'keyword', space_slug: a.slug });
      expect(onlyA.total).toBe(7);
      expectProblem(await search(alice, { query: w, space_slug: b.slug }), 404);
      expectProblem(await search(alice, { query: w, space_slug: 'no-such-space-here' }), 404);
    });

    it('shows standards pages in draft only to those who may edit the space', async () => {
      const query = { query: w, mode: 'keyword', types: ['standard_page'] };
      const ofViewer = await found(vera, query);
      expect(ofViewer.items.map((item) => item.id)).toEqual([ids.page]);
      expect(ofViewer.total).toBe(1);
      expect(ofViewer.items[0]).toEqual(
        expect.objectContaining({
          title: `Naming ${w} conventions`,
          snippet: 'Tables are named in snake_case after the business entity they hold.',
        }),
      );
      expect(keyed((await found(alice, query)).items)).toEqual(
        [`standard_page:${ids.page}`, `standard_page:${ids.draft}`].sort(),
      );
      expect((await found(root, query)).total).toBe(2);
    });

    it('finds a word deep in a long page; its snippet then comes from the start of the page', async () => {
      const long = await createSpace(t.http, alice);
      const deep = word();
      const body = `${'Lorem ipsum dolor sit amet. '.repeat(3500)}The ${deep} clause.`;
      const page = await t.http
        .post(`${API}/spaces/${long.slug}/standards`)
        .set(bearer(alice))
        .send({ title: 'Long standard', body, status: 'published' });
      expect(page.status).toBe(201);
      const { items, total } = await found(alice, { query: deep, mode: 'keyword', space_slug: long.slug });
      expect(total).toBe(1);
      expect(items[0].id).toBe(page.body.id);
      expect(items[0].snippet).toMatch(/^Lorem ipsum dolor sit amet\./);
      expect(items[0].snippet).not.toContain('<mark>');
    });

    it('leaves out archived policies, and incidents where the space switched incidents off', async () => {
      const policies = await found(alice, { query: w, mode: 'keyword', types: ['policy'] });
      expect(policies.items.map((item) => item.id)).toEqual([ids.policy]);
      expect(policies.total).toBe(1);

      const c = await createSpace(t.http, alice);
      const product = await createProduct(t.http, alice, c, { name: `Feed ${w}` });
      const alert = await t.http
        .post(`${API}/spaces/${c.slug}/alerts`)
        .set(bearer(alice))
        .send({ product_id: product.id, alert_type: 'anomaly', severity: 'low', message: 'Odd' });
      expect(alert.status).toBe(201);
      const query = { query: `feed ${w}`, types: ['incident'], mode: 'keyword', space_slug: c.slug };
      expect((await found(alice, query)).items.map((item) => item.id)).toEqual([alert.body.incident_id]);
      const off = await t.http
        .patch(`${API}/spaces/${c.slug}/features`)
        .set(bearer(alice))
        .send({ 'quality.incidents': false });
      expect(off.status).toBe(200);
      expect(await found(alice, query)).toEqual({ items: [], total: 0, total_relation: 'eq' });
      expect(await found(root, query)).toEqual({ items: [], total: 0, total_relation: 'eq' });
    });
  });

  describe('modes (the built-in local embedder)', () => {
    const meaning = 'snake case table naming';

    it('semantic: nearest products and published pages by cosine similarity, in readable spaces only', async () => {
      const { items, total } = await found(vera, { query: meaning, mode: 'semantic' });
      expect(items[0]).toEqual(
        expect.objectContaining({ type: 'standard_page', id: ids.page, space_slug: a.slug }),
      );
      expect(keyed(items)).toEqual(
        [`product:${ids.product}`, `product:${ids.described}`, `standard_page:${ids.page}`].sort(),
      );
      expect(total).toBe(items.length);
      for (const item of items) expect(item.score).toBeLessThanOrEqual(1.0001);
      const scores = items.map((item) => item.score);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));
      // Other types have no vectors: keyword only.
      expect(await found(vera, { query: meaning, mode: 'semantic', types: ['risk', 'ticket'] })).toEqual({
        items: [],
        total: 0,
        total_relation: 'eq',
      });
      // Bob's product is as close in meaning, but not his to see... nor Alice's to Bob.
      const ofBob = await found(bob, { query: w, mode: 'semantic' });
      expect(ofBob.items.map((item) => item.id)).toEqual([ids.other]);
      expect(await found(bob, { query: w })).toEqual({
        items: [expect.objectContaining({ id: ids.other })],
        total: 1,
        total_relation: 'eq',
      });
    });

    it('hybrid (the default): keyword and semantic lists fused by reciprocal rank, k = 60', async () => {
      const keyword = await found(vera, { query: w, mode: 'keyword' });
      const semantic = await found(vera, { query: w, mode: 'semantic' });
      const hybrid = await found(vera, { query: w });
      const expected = new Map<string, number>();
      for (const list of [keyword.items, semantic.items]) {
        list.forEach((item, index) => {
          const key = `${item.type}:${item.id}`;
          expected.set(key, (expected.get(key) ?? 0) + 1 / (60 + index + 1));
        });
      }
      expect(hybrid.items.map((item) => [`${item.type}:${item.id}`, item.score])).toEqual(
        [...expected.entries()]
          .sort((x, y) => y[1] - x[1])
          .map(([key, score]) => [key, expect.closeTo(score, 12)]),
      );
      // Each matching item counted once: every neighbour here also matches the words.
      expect(hybrid.total).toBe(keyword.total);
      const fused = hybrid.items.find((item) => item.id === ids.page)!;
      expect(fused.snippet).toBe(keyword.items.find((item) => item.id === ids.page)!.snippet);
    });

    it('hybrid counts a neighbour the words do not match once more in the total', async () => {
      const keyword = await found(vera, { query: `${w} numbers`, mode: 'keyword' });
      expect(keyword.items.map((item) => item.id)).toEqual([ids.risk]);
      const hybrid = await found(vera, { query: `${w} numbers` });
      expect(hybrid.total).toBe(1 + 3);
      expect(keyed(hybrid.items)).toEqual(
        [
          `risk:${ids.risk}`,
          `product:${ids.product}`,
          `product:${ids.described}`,
          `standard_page:${ids.page}`,
        ].sort(),
      );
    });
  });

  describe('when the vector store fails', () => {
    let fay: TestUser;
    beforeAll(async () => {
      fay = await createUser(t.http, { first_name: 'Fay' });
      await addMember(t.http, alice, a, fay, 'viewer');
    });

    it('semantic answers no items and hybrid answers exactly what keyword answers (never a 500)', async () => {
      const db = t.app.get(DataSource);
      const keyword = await found(fay, { query: w, mode: 'keyword' });
      // Every statement on the vectors fails while the table is away.
      await db.query(`ALTER TABLE item_embeddings RENAME TO item_embeddings_away`);
      try {
        expect(await found(fay, { query: w, mode: 'semantic' })).toEqual({
          items: [],
          total: 0,
          total_relation: 'eq',
        });
        expect(await found(fay, { query: w, mode: 'hybrid' })).toEqual(keyword);
      } finally {
        await db.query(`ALTER TABLE item_embeddings_away RENAME TO item_embeddings`);
      }
      expect((await found(fay, { query: w, mode: 'semantic' })).items.length).toBeGreaterThan(0);
    });
  });

  describe('answers kept between searches', () => {
    /** A caller with one product of its own, found by `fresh`, and nothing left for the background to write. */
    async function kept() {
      const user = await createUser(t.http, { first_name: 'Kept' });
      const space = await createSpace(t.http, user);
      const fresh = word();
      const product = await createProduct(t.http, user, space, { name: `Kept ${fresh}` });
      await t.app.get(OutboxDispatcher).drain();
      await t.app.get(JobRunner).drain();
      return { user, space, product, body: { query: fresh, mode: 'keyword' } };
    }

    /** Takes an item out of search behind the cache's back: no watched table is written. */
    async function dropDocument(productId: string): Promise<void> {
      await t.app
        .get(DataSource)
        .query(`DELETE FROM search_documents WHERE type = 'product' AND id = $1`, [productId]);
    }

    it.each(SEARCH_WATCHED_TABLES)(
      'serves an answer again until %s is written, then computes it afresh',
      async (table) => {
        const { user, product, body } = await kept();
        const first = await found(user, body);
        expect(first).toEqual({
          items: [expect.objectContaining({ id: product.id })],
          total: 1,
          total_relation: 'eq',
        });
        await dropDocument(product.id);
        expect(await found(user, body)).toEqual(first);
        // A statement trigger fires for a statement that changes no row, too.
        await t.app.get(DataSource).query(`DELETE FROM ${table} WHERE false`);
        expect(await found(user, body)).toEqual({ items: [], total: 0, total_relation: 'eq' });
      },
    );

    it('keeps answers per caller and per request', async () => {
      const { user, space, product, body } = await kept();
      const other = await createUser(t.http, { first_name: 'Other' });
      await addMember(t.http, user, space, other, 'viewer');
      expect((await found(user, body)).total).toBe(1);
      await dropDocument(product.id);
      // Another caller's first search of it, and another limit of the same caller: computed, not kept ones.
      expect(await found(other, body)).toEqual({ items: [], total: 0, total_relation: 'eq' });
      expect(await found(user, { ...body, limit: 5 })).toEqual({ items: [], total: 0, total_relation: 'eq' });
    });

    it('answers a write through the API at once', async () => {
      const { user, space, product, body } = await kept();
      expect((await found(user, body)).total).toBe(1);
      const renamed = await t.http
        .patch(`${API}/catalog/spaces/${space.slug}/products/${product.id}`)
        .set(bearer(user))
        .send({ name: `Renamed ${body.query}` });
      expect(renamed.status).toBe(200);
      expect((await found(user, body)).items).toEqual([
        expect.objectContaining({ id: product.id, title: `Renamed ${body.query}` }),
      ]);
      const deleted = await t.http
        .delete(`${API}/catalog/spaces/${space.slug}/products/${product.id}`)
        .set(bearer(user));
      expect(deleted.status).toBe(204);
      expect(await found(user, body)).toEqual({ items: [], total: 0, total_relation: 'eq' });
    });

    it('prunes the changes below a horizon taken more than two minutes ago, then takes the next', async () => {
      const db = t.app.get(DataSource);
      await db.query(
        `UPDATE search_change_horizon SET horizon = pg_snapshot_xmin(pg_current_snapshot()), taken_at = now() - interval '3 minutes'`,
      );
      const [{ horizon }] = (await db.query(
        `SELECT horizon::text AS horizon FROM search_change_horizon`,
      )) as {
        horizon: string;
      }[];
      const { user, space } = await kept();
      const written = `SELECT count(*)::int AS n FROM search_changes WHERE xid >= $1::xid8`;
      const below = `SELECT count(*)::int AS n FROM search_changes WHERE xid < $1::xid8`;
      const [{ n: after }] = (await db.query(written, [horizon])) as { n: number }[];
      expect(after).toBeGreaterThan(0);

      await t.app.get(SearchCache).prune();
      expect(await db.query(below, [horizon])).toEqual([{ n: 0 }]);
      expect(await db.query(written, [horizon])).toEqual([{ n: after }]);
      const [next] = (await db.query(
        `SELECT horizon::text AS horizon, taken_at > now() - interval '1 minute' AS recent FROM search_change_horizon`,
      )) as { horizon: string; recent: boolean }[];
      expect(next.recent).toBe(true);
      // The snapshot's xmin is the cluster's oldest running transaction: a transaction of a parallel
      // suite (another database, same server) may hold it where it was, so the horizon never moves back.
      expect(BigInt(next.horizon)).toBeGreaterThanOrEqual(BigInt(horizon));

      // The new horizon is too young to prune by: nothing goes, and it stays.
      await createProduct(t.http, user, space);
      const [{ n: more }] = (await db.query(written, [horizon])) as { n: number }[];
      expect(more).toBeGreaterThan(after);
      await t.app.get(SearchCache).prune();
      expect(await db.query(written, [horizon])).toEqual([{ n: more }]);
      expect(await db.query(`SELECT horizon::text AS horizon FROM search_change_horizon`)).toEqual([
        { horizon: next.horizon },
      ]);
    });
  });

  describe('input', () => {
    it.each([
      [{}, 'query'],
      [{ query: '' }, 'query'],
      [{ query: '   ' }, 'query'],
      [{ query: 'x'.repeat(501) }, 'query'],
      [{ query: 'bell\u0007' }, 'query'],
      [{ query: 'tab\there' }, 'query'],
      [{ query: 42 }, 'query'],
      [{ query: 'x', types: ['product', 'dataset'] }, 'types'],
      [{ query: 'x', types: [] }, 'types'],
      [{ query: 'x', types: 'product' }, 'types'],
      [{ query: 'x', mode: 'fuzzy' }, 'mode'],
      [{ query: 'x', limit: 0 }, 'limit'],
      [{ query: 'x', limit: 101 }, 'limit'],
      [{ query: 'x', limit: 2.5 }, 'limit'],
      [{ query: 'x', space_slug: 7 }, 'space_slug'],
      [{ query: 'x', page: 2 }, 'page'],
    ])('refuses %j with 422 naming %s', async (body, field) => {
      const res = await search(ivan, body);
      expectProblem(res, 422);
      expect(invalidFields(res)).toContain(field);
    });

    it('takes 500 characters once trimmed, and limit 100', async () => {
      const res = await search(ivan, { query: `  ${'y'.repeat(500)}  `, limit: 100, mode: 'keyword' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: [], total: 0, total_relation: 'eq' });
    });

    it('needs a signed-in caller', async () => {
      expectProblem(await t.http.post(`${API}/search`).send({ query: w }), 401);
    });
  });

  it('allows 30 searches a minute per caller, then 429 with Retry-After and the limit headers', async () => {
    const caller = await createUser(t.http, { first_name: 'Quick' });
    const limitOf = (res: Response) => ({
      limit: res.headers['x-ratelimit-limit'],
      remaining: res.headers['x-ratelimit-remaining'],
    });
    // All 31 requests in one minute window, even when the wall clock crosses a minute meanwhile.
    const clock = pinLimiterClock(t, QUIET_MINUTE);
    try {
      for (let i = 1; i <= 30; i++) {
        const res = await search(caller, { query: w, mode: 'keyword', limit: 1 });
        expect(res.status).toBe(200);
        expect(limitOf(res)).toEqual({ limit: '30', remaining: String(30 - i) });
      }
      const refused = await search(caller, { query: w, mode: 'keyword' });
      expectProblem(refused, 429, /Rate limit exceeded: try again in \d+ seconds?\./);
      expect(limitOf(refused)).toEqual({ limit: '30', remaining: '0' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      // Another caller has a budget of their own.
      expect((await search(vera, { query: w, mode: 'keyword', limit: 1 })).status).toBe(200);
    } finally {
      clock.restore();
    }
  });

  // Last: passport keeps one strategy per name for the whole process, the last app's, so the
  // main app's tokens stop checking out once another app has booted and closed.
  describe.each([
    ['embeddings are disabled', async () => ({ EMBEDDING_ENABLED: 'false' })],
    [
      'the embedding provider fails',
      async () => ({
        EMBEDDING_PROVIDER: 'openai',
        EMBEDDING_API_KEY: 'sk-test-0123456789abcdef',
        // Nothing listens there.
        EMBEDDING_API_BASE_URL: `http://127.0.0.1:${await freePort()}/v1`,
        TRUSTED_AI_HOSTS: '127.0.0.1',
        ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      }),
    ],
  ])('when %s', (_case, env) => {
    let other: TestApp;
    beforeAll(async () => {
      other = await startApp({ env: { JWT_SECRET, ...(await env()) } });
    });
    afterAll(() => other.close());

    it('semantic answers no items and hybrid answers exactly what keyword answers', async () => {
      const ask = async (body: Record<string, unknown>) => {
        const res = await other.http.post(`${API}/search`).set(bearer(vera)).send(body);
        expect(res.status).toBe(200);
        return res.body;
      };
      expect(await ask({ query: w, mode: 'semantic' })).toEqual({
        items: [],
        total: 0,
        total_relation: 'eq',
      });
      const keyword = await ask({ query: w, mode: 'keyword' });
      expect(keyword.total).toBe(7);
      expect(await ask({ query: w, mode: 'hybrid' })).toEqual(keyword);
    });
  });
});
