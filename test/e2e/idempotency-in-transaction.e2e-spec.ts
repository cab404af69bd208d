import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createProduct, createSpace, createUser, TestSpace, TestUser } from '../support/factories';
import { expectProblem } from '../support/problem';
import { recordStatements, transactionsWith } from '../support/statement-log';

const API = '/api/v1.0';
const CLAIM = /^INSERT INTO idempotency_keys/;

/**
 * `@ClaimsInTransaction()` routes: the Idempotency-Key claim is the first
 * statement of the write's own transaction (docs/decisions.md), with every
 * guarantee of the up-front claim kept.
 */
describe('Idempotency-Key claimed inside the write transaction', () => {
  let t: TestApp;
  let alice: TestUser;
  let space: TestSpace;

  beforeAll(async () => {
    t = await startApp();
    alice = await createUser(t.http);
    space = await createSpace(t.http, alice);
  });
  afterAll(() => t.close());

  const newKey = () => `key-${randomUUID()}`;
  const post = (path: string, key: string, body: object) =>
    t.http.post(`${API}${path}`).set(bearer(alice)).set('Idempotency-Key', key).send(body);
  const keyRows = (key: string) =>
    dbQuery<{ status: string; response_status: number | null }>(
      `SELECT status, response_status FROM idempotency_keys WHERE key = $1`,
      [key],
    );

  it('claims the key in the statement that creates a space or a product: one statement and one commit, then the answer kept', async () => {
    const writes: [string, RegExp][] = [
      ['/spaces', /^WITH claim AS \(INSERT INTO idempotency_keys .* INSERT INTO spaces /],
      [
        `/catalog/spaces/${space.slug}/products`,
        /^WITH claim AS \(INSERT INTO idempotency_keys .* INSERT INTO products /,
      ],
    ];
    for (const [path, write] of writes) {
      const key = newKey();
      const body = { name: `One ${randomUUID().slice(0, 8)}` };
      const log = recordStatements(t.app.getHttpServer());
      let res: Response;
      try {
        res = await post(path, key, body);
      } finally {
        log.stop();
      }
      expect(res.status).toBe(201);
      // Leaving out the caller's session lookup: the claim with the write (its membership or roles, its event,
      // its counter), then the answer kept.
      const texts = log.statements.map((s) => s.text).filter((text) => !/ FROM sessions /.test(text));
      expect(texts).toHaveLength(2);
      expect(texts[0]).toMatch(write);
      expect(texts[1]).toMatch(/^UPDATE idempotency_keys SET status = 'done'/);
      expect(await keyRows(key)).toEqual([{ status: 'done', response_status: 201 }]);
      const retry = await post(path, key, body);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(res.body);
    }
  });

  it('claims the key as the first statement of the write, and commits once more only to keep the answer', async () => {
    const product = await createProduct(t.http, alice, space);
    const writes: [string, () => object, RegExp][] = [
      [
        `/spaces/${space.slug}/alerts`,
        () => ({ product_id: product.id, alert_type: 'anomaly', severity: 'medium', message: randomUUID() }),
        /INSERT INTO "quality_alerts"/,
      ],
      [
        '/issues/tickets',
        () => ({ space_id: space.id, title: `T ${randomUUID().slice(0, 8)}` }),
        /INSERT INTO "tickets"/,
      ],
    ];
    for (const [path, body, write] of writes) {
      const key = newKey();
      const log = recordStatements();
      let res: Response;
      try {
        res = await post(path, key, body());
      } finally {
        log.stop();
      }
      expect(res.status).toBe(201);
      const mine = log.statements.filter((s) => s.text.includes('idempotency_keys'));
      // The claim and the completion: no separate commit for the claim.
      expect(mine.map((s) => s.text.split(' ').slice(0, 2).join(' '))).toEqual([
        'INSERT INTO',
        'UPDATE idempotency_keys',
      ]);
      const [claimed, ...others] = transactionsWith(log.statements, CLAIM);
      expect(others).toHaveLength(0);
      expect(claimed[1]).toMatch(CLAIM);
      expect(claimed.find((s) => write.test(s)) ?? claimed.join(' / ')).toMatch(write);
      expect(await keyRows(key)).toEqual([{ status: 'done', response_status: 201 }]);
    }
  });

  it('runs racing requests with one key once: the others answer 409 or the replay', async () => {
    const name = `Race ${randomUUID().slice(0, 8)}`;
    const routes: [string, () => Promise<unknown[]>][] = [
      [
        `/catalog/spaces/${space.slug}/products`,
        () => dbQuery(`SELECT 1 FROM products WHERE space_id = $1 AND name = $2`, [space.id, name]),
      ],
      ['/spaces', () => dbQuery(`SELECT 1 FROM spaces WHERE name = $1`, [name])],
    ];
    for (const [path, created] of routes) {
      const key = newKey();
      const answers = await Promise.all(Array.from({ length: 6 }, () => post(path, key, { name })));
      const fresh = answers.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] !== 'true');
      expect(fresh).toHaveLength(1);
      for (const other of answers.filter((r) => r !== fresh[0])) {
        if (other.status === 409) expect(other.body.code).toBe('idempotency_key_in_use');
        else expect(other.body).toEqual(fresh[0].body);
      }
      expect(await created()).toHaveLength(1);
    }
  });

  it('undoes the claim with a write that fails, and keeps its 4xx answer for a retry', async () => {
    const taken = await createProduct(t.http, alice, space);
    const key = newKey();
    const log = recordStatements();
    let first: Response;
    try {
      first = await post(`/catalog/spaces/${space.slug}/products`, key, { name: taken.name });
    } finally {
      log.stop();
    }
    expectProblem(first, 409);
    // The claim was in the statement that failed on the taken name, so it never was; the answer was kept after
    // by a claim of its own.
    const mine = log.statements.filter((s) => s.text.includes('idempotency_keys')).map((s) => s.text);
    expect(mine[0]).toMatch(/^WITH claim AS \(INSERT INTO idempotency_keys .* INSERT INTO products /);
    expect(mine[1]).toMatch(CLAIM);
    expect(transactionsWith(log.statements, CLAIM)).toEqual([]);
    expect(await keyRows(key)).toEqual([{ status: 'done', response_status: 409 }]);
    const retry = await post(`/catalog/spaces/${space.slug}/products`, key, { name: taken.name });
    expect(retry.status).toBe(409);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  it('keeps the answer of a request refused before any transaction, and replays it', async () => {
    const key = newKey();
    const path = `/catalog/spaces/${space.slug}/products`;
    // An empty name: the validation pipe answers 422 before the handler runs.
    const first = await post(path, key, { name: '' });
    expectProblem(first, 422);
    expect(await keyRows(key)).toEqual([{ status: 'done', response_status: 422 }]);
    const retry = await post(path, key, { name: '' });
    expect(retry.status).toBe(422);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    // Another body under the key: refused, as an up-front claim would.
    const reused = await post('/spaces', key, { name: 'other' });
    expectProblem(reused, 422);
    expect(reused.body.code).toBe('idempotency_key_reused');
  });

  it('answers the refusal of a late claim instead of the problem the request met first', async () => {
    const key = newKey();
    const path = `/catalog/spaces/${space.slug}/products`;
    const first = await post(path, key, { name: `Kept ${randomUUID().slice(0, 8)}` });
    expect(first.status).toBe(201);
    // Refused by the validation pipe before any transaction, then by the key, which holds another request's answer.
    const other = await post(path, key, { name: '' });
    expectProblem(other, 422);
    expect(other.body.code).toBe('idempotency_key_reused');
    expect(other.headers['location']).toBeUndefined();
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await keyRows(key)).toEqual([{ status: 'done', response_status: 201 }]);
  });
});
