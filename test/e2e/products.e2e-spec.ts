import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
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
import { TransactionRunner } from '../../src/database/transaction.runner';
import { ProductDirectoryService } from '../../src/modules/catalog/product-directory.service';
import { ProductsService } from '../../src/modules/catalog/products.service';

const API = '/api/v1.0';

describe('data products', () => {
  let t: TestApp;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  let space: TestSpace;
  const products = () => `${API}/catalog/spaces/${space.slug}/products`;

  beforeAll(async () => {
    t = await startApp();
    admin = await createUser(t.http, { first_name: 'Ada', last_name: 'Admin' });
    editor = await createUser(t.http, { first_name: 'Eve', last_name: 'Editor' });
    viewer = await createUser(t.http, { first_name: 'Vic', last_name: 'Viewer' });
    outsider = await createUser(t.http, { first_name: 'Oz' });
    space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, editor, 'editor');
    await addMember(t.http, admin, space, viewer, 'viewer');
    for (const c of ['criticality-levels', 'sensitivity-levels', 'maintenance-statuses']) {
      await t.http.post(`${API}/spaces/${space.slug}/config/${c}/seed`).set(bearer(admin));
    }
  });
  afterAll(() => t.close());

  describe('create and read', () => {
    it('creates a product with every field and answers the read model', async () => {
      const res = await t.http
        .post(products())
        .set(bearer(editor))
        .send({
          name: 'Orders Model',
          description: 'Scores orders',
          product_type: 'ai_system',
          domain: 'sales',
          tags: ['pii', ' gold ', 'pii'],
          criticality: 'high',
          sensitivity: 'Confidential',
          maintenance_status: 'active',
          owner_ids: [editor.id],
          steward_ids: [viewer.id, admin.id],
          sla_freshness_minutes: 60,
          attributes: { schema: { id: 'uuid' }, rows: 10 },
          logging_event_types: ['inference', 'override'],
          logging_last_reviewed: '2025-03-01T10:00:00+02:00',
          logging_notes: 'Reviewed by the AI board',
        });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        space_id: space.id,
        name: 'Orders Model',
        description: 'Scores orders',
        product_type: 'ai_system',
        domain: 'sales',
        tags: ['pii', 'gold'],
        criticality: 'High',
        sensitivity: 'Confidential',
        maintenance_status: 'active',
        owners: [{ id: editor.id, full_name: 'Eve Editor' }],
        stewards: [
          { id: admin.id, full_name: 'Ada Admin' },
          { id: viewer.id, full_name: 'Vic Viewer' },
        ],
        sla_freshness_minutes: 60,
        attributes: { schema: { id: 'uuid' }, rows: 10 },
        logging_event_types: ['inference', 'override'],
        logging_last_reviewed: '2025-03-01T08:00:00.000Z',
        logging_notes: 'Reviewed by the AI board',
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      });
      const read = await t.http.get(`${products()}/${res.body.id}`).set(bearer(viewer));
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
      const events = await dbQuery<{ type: string }>(
        `SELECT type FROM outbox_events WHERE payload->>'product_id' = $1`,
        [res.body.id],
      );
      expect(events).toEqual([{ type: 'product.created' }]);
    });

    it('fills defaults for a minimal product', async () => {
      const res = await t.http
        .post(products())
        .set(bearer(editor))
        .send({ name: `Minimal ${randomUUID()}` });
      expect(res.status).toBe(201);
      expect(res.body).toEqual(
        expect.objectContaining({
          product_type: 'dataset',
          description: null,
          domain: null,
          tags: [],
          criticality: null,
          sensitivity: null,
          maintenance_status: null,
          owners: [],
          stewards: [],
          sla_freshness_minutes: null,
          attributes: {},
          logging_event_types: [],
          logging_last_reviewed: null,
          logging_notes: null,
        }),
      );
    });

    it('keeps names unique in the space, case-insensitively (409)', async () => {
      const name = `Unique ${randomUUID()}`;
      await createProduct(t.http, editor, space, { name });
      expectProblem(
        await t.http.post(products()).set(bearer(editor)).send({ name: name.toUpperCase() }),
        409,
      );
      const other = await createSpace(t.http, admin);
      expect(
        (await t.http.post(`${API}/catalog/spaces/${other.slug}/products`).set(bearer(admin)).send({ name }))
          .status,
      ).toBe(201);
    });

    it('rejects metadata values and people that are not in the space (422, every field named)', async () => {
      const res = await t.http
        .post(products())
        .set(bearer(editor))
        .send({
          name: `Bad refs ${randomUUID()}`,
          criticality: 'Apocalyptic',
          sensitivity: 'Secret',
          maintenance_status: 'Active',
          owner_ids: [outsider.id],
          steward_ids: [randomUUID()],
        });
      expectProblem(res, 422);
      expect(invalidFields(res).sort()).toEqual(
        ['criticality', 'maintenance_status', 'owner_ids', 'sensitivity', 'steward_ids'].sort(),
      );
    });

    it.each([
      [{ product_type: 'spreadsheet' }, 'product_type'],
      [{ tags: 'pii' }, 'tags'],
      [{ tags: [1] }, 'tags'],
      [{ owner_ids: ['nope'] }, 'owner_ids'],
      [{ sla_freshness_minutes: 0 }, 'sla_freshness_minutes'],
      [{ sla_freshness_minutes: 'soon' }, 'sla_freshness_minutes'],
      [{ attributes: [1, 2] }, 'attributes'],
      [{ logging_last_reviewed: 'yesterday' }, 'logging_last_reviewed'],
      [{ space_id: randomUUID() }, 'space_id'],
    ])('rejects %p (422)', async (body, field) => {
      const res = await t.http
        .post(products())
        .set(bearer(editor))
        .send({ name: `Invalid ${randomUUID()}`, ...body });
      expectProblem(res, 422);
      expect(invalidFields(res)).toContain(field);
    });

    it('needs edit access to write and membership to read', async () => {
      expectProblem(await t.http.post(products()).set(bearer(viewer)).send({ name: 'Nope' }), 403);
      expectProblem(await t.http.get(products()).set(bearer(outsider)), 404);
      const product = await createProduct(t.http, editor, space);
      expectProblem(await t.http.get(`${products()}/${product.id}`).set(bearer(outsider)), 404);
      expectProblem(
        await t.http.patch(`${products()}/${product.id}`).set(bearer(viewer)).send({ name: 'x' }),
        403,
      );
      expectProblem(await t.http.delete(`${products()}/${product.id}`).set(bearer(viewer)), 403);
      expectProblem(await t.http.get(`${products()}/${randomUUID()}`).set(bearer(viewer)), 404);
      const malformed = await t.http.get(`${products()}/not-a-uuid`).set(bearer(viewer));
      expectProblem(malformed, 422);
      expect(invalidFields(malformed)).toEqual(['product_id']);
      // A product of another space is not found through this one.
      const other = await createSpace(t.http, admin);
      expectProblem(
        await t.http.get(`${API}/catalog/spaces/${other.slug}/products/${product.id}`).set(bearer(admin)),
        404,
      );
    });
  });

  describe('update and delete', () => {
    it('changes only the fields given and replaces owners and stewards', async () => {
      const product = await createProduct(t.http, editor, space, {
        description: 'Before',
        tags: ['a'],
        owner_ids: [editor.id],
        criticality: 'Low',
        sla_freshness_minutes: 30,
      });
      const res = await t.http
        .patch(`${products()}/${product.id}`)
        .set(bearer(editor))
        .send({
          tags: ['b', 'c'],
          owner_ids: [viewer.id],
          steward_ids: [editor.id],
          sla_freshness_minutes: null,
        });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          name: product.name,
          description: 'Before',
          tags: ['b', 'c'],
          criticality: 'Low',
          sla_freshness_minutes: null,
          owners: [{ id: viewer.id, full_name: 'Vic Viewer' }],
          stewards: [{ id: editor.id, full_name: 'Eve Editor' }],
        }),
      );
      const cleared = await t.http
        .patch(`${products()}/${product.id}`)
        .set(bearer(editor))
        .send({ criticality: null, description: null, owner_ids: [] });
      expect(cleared.body).toEqual(
        expect.objectContaining({ criticality: null, description: null, owners: [] }),
      );
      const events = await dbQuery<{ type: string; changed: string[] }>(
        `SELECT type, payload->'changed' AS changed FROM outbox_events WHERE payload->>'product_id' = $1 ORDER BY occurred_at`,
        [product.id],
      );
      expect(events.map((e) => e.type)).toEqual(['product.created', 'product.updated', 'product.updated']);
      expect(events[1].changed).toEqual(
        expect.arrayContaining(['tags', 'sla_freshness_minutes', 'owners', 'stewards']),
      );
    });

    it('renames (409 on a taken name; a change of case is fine)', async () => {
      const a = await createProduct(t.http, editor, space);
      const b = await createProduct(t.http, editor, space);
      expectProblem(
        await t.http.patch(`${products()}/${b.id}`).set(bearer(editor)).send({ name: a.name }),
        409,
      );
      const recased = await t.http
        .patch(`${products()}/${a.id}`)
        .set(bearer(editor))
        .send({ name: a.name.toUpperCase() });
      expect(recased.status).toBe(200);
      expect(recased.body.name).toBe(a.name.toUpperCase());
    });

    it('deletes a product with its lineage and access requests (204, then 404)', async () => {
      const a = await createProduct(t.http, editor, space);
      const b = await createProduct(t.http, editor, space);
      await t.http
        .post(`${API}/catalog/spaces/${space.slug}/lineage`)
        .set(bearer(editor))
        .send({ upstream_id: a.id, downstream_id: b.id });
      await t.http
        .post(`${products()}/${a.id}/access-requests`)
        .set(bearer(viewer))
        .send({ justification: 'Need it', access_level: 'read' });
      expect((await t.http.delete(`${products()}/${a.id}`).set(bearer(editor))).status).toBe(204);
      expectProblem(await t.http.get(`${products()}/${a.id}`).set(bearer(editor)), 404);
      expectProblem(await t.http.delete(`${products()}/${a.id}`).set(bearer(editor)), 404);
      const lineage = await t.http.get(`${products()}/${b.id}/lineage`).set(bearer(editor));
      expect(lineage.body.edges).toEqual([]);
      expect(await dbQuery(`SELECT 1 FROM access_requests WHERE product_id = $1`, [a.id])).toEqual([]);
      const audit = await dbQuery(`SELECT action FROM audit_log WHERE resource_id = $1`, [a.id]);
      expect(audit).toEqual([{ action: 'product.deleted' }]);
    });
  });

  describe('soft-deleted metadata values', () => {
    it('stay on products that carry them, cannot be chosen anew, and follow renames', async () => {
      const level = await t.http
        .post(`${API}/spaces/${space.slug}/config/criticality-levels`)
        .set(bearer(admin))
        .send({ name: `Legacy ${randomUUID().slice(0, 6)}` });
      const product = await createProduct(t.http, editor, space, { criticality: level.body.name });
      const renamed = `${level.body.name} v2`;
      await t.http
        .patch(`${API}/spaces/${space.slug}/config/criticality-levels/${level.body.id}`)
        .set(bearer(admin))
        .send({ name: renamed });
      expect((await t.http.get(`${products()}/${product.id}`).set(bearer(viewer))).body.criticality).toBe(
        renamed,
      );

      await t.http
        .delete(`${API}/spaces/${space.slug}/config/criticality-levels/${level.body.id}`)
        .set(bearer(admin));
      const read = await t.http.get(`${products()}/${product.id}`).set(bearer(viewer));
      expect(read.body.criticality).toBe(renamed);
      // Sending the value it already has back is fine; choosing it for another product is not.
      const resend = await t.http
        .patch(`${products()}/${product.id}`)
        .set(bearer(editor))
        .send({ criticality: renamed, description: 'still legacy' });
      expect(resend.status).toBe(200);
      expect(resend.body.criticality).toBe(renamed);
      const fresh = await t.http
        .post(products())
        .set(bearer(editor))
        .send({ name: `New ${randomUUID()}`, criticality: renamed });
      expectProblem(fresh, 422);
      expect(invalidFields(fresh)).toEqual(['criticality']);
      const other = await createProduct(t.http, editor, space);
      const choose = await t.http
        .patch(`${products()}/${other.id}`)
        .set(bearer(editor))
        .send({ criticality: renamed });
      expectProblem(choose, 422);
      // Still found by the list filter.
      const listed = await t.http
        .get(`${products()}?criticality=${encodeURIComponent(renamed)}`)
        .set(bearer(viewer));
      expect(listed.body.items.map((p: { id: string }) => p.id)).toEqual([product.id]);
    });
  });

  describe('list', () => {
    let listSpace: TestSpace;
    const list = (query = '') =>
      t.http.get(`${API}/catalog/spaces/${listSpace.slug}/products${query}`).set(bearer(viewer));

    beforeAll(async () => {
      listSpace = await createSpace(t.http, admin);
      await addMember(t.http, admin, listSpace, editor, 'editor');
      await addMember(t.http, admin, listSpace, viewer, 'viewer');
      await t.http.post(`${API}/spaces/${listSpace.slug}/config/criticality-levels/seed`).set(bearer(admin));
      const make = (fields: Record<string, unknown>) => createProduct(t.http, editor, listSpace, fields);
      await make({
        name: 'alpha orders',
        tags: ['gold', 'pii'],
        owner_ids: [editor.id],
        criticality: 'High',
      });
      await make({
        name: 'Beta Customers',
        description: 'All ORDERS of customers',
        tags: ['gold'],
        product_type: 'dashboard',
      });
      await make({
        name: 'gamma metrics',
        tags: ['silver'],
        owner_ids: [viewer.id],
        criticality: 'High',
        product_type: 'dashboard',
      });
      await make({ name: 'Delta_100%', product_type: 'ml_model', criticality: 'Low' });
    });

    it('lists by name, case-insensitively, with skip and limit', async () => {
      const res = await list();
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(4);
      expect(res.body.items.map((p: { name: string }) => p.name)).toEqual([
        'alpha orders',
        'Beta Customers',
        'Delta_100%',
        'gamma metrics',
      ]);
      const page = await list('?skip=1&limit=2');
      expect(page.body.total).toBe(4);
      expect(page.body.items.map((p: { name: string }) => p.name)).toEqual(['Beta Customers', 'Delta_100%']);
    });

    it.each([
      ['?q=orders', ['alpha orders', 'Beta Customers']],
      ['?q=100%25', ['Delta_100%']],
      ['?q=a_o', []],
      ['?tag=gold', ['alpha orders', 'Beta Customers']],
      ['?tag=gold&product_type=dashboard', ['Beta Customers']],
      ['?product_type=dashboard', ['Beta Customers', 'gamma metrics']],
      ['?criticality=high', ['alpha orders', 'gamma metrics']],
      ['?criticality=Unknown', []],
      ['?q=orders&criticality=High', ['alpha orders']],
    ])('filters %s', async (query, names) => {
      const res = await list(query);
      expect(res.status).toBe(200);
      expect(res.body.items.map((p: { name: string }) => p.name)).toEqual(names);
      expect(res.body.total).toBe(names.length);
    });

    it('filters by owner', async () => {
      const res = await list(`?owner_id=${viewer.id}`);
      expect(res.body.items.map((p: { name: string }) => p.name)).toEqual(['gamma metrics']);
    });

    it.each(['?limit=0', '?limit=201', '?skip=-1', '?owner_id=nope', '?product_type=x', '?unknown=1'])(
      'rejects %s (422)',
      async (query) => {
        expectProblem(await list(query), 422);
      },
    );

    it('counts products created and deleted through the API', async () => {
      const extra = await createProduct(t.http, editor, listSpace);
      expect((await list()).body.total).toBe(5);
      await t.http.delete(`${API}/catalog/spaces/${listSpace.slug}/products/${extra.id}`).set(bearer(editor));
      expect((await list()).body.total).toBe(4);
    });

    it('keeps the counter exact under concurrent creates and deletes in one space', async () => {
      const busy = await createSpace(t.http, admin);
      await addMember(t.http, admin, busy, editor, 'editor');
      const made = await Promise.all(Array.from({ length: 12 }, () => createProduct(t.http, editor, busy)));
      await Promise.all([
        ...made
          .slice(0, 3)
          .map((p) =>
            t.http
              .delete(`${API}/catalog/spaces/${busy.slug}/products/${p.id}`)
              .set(bearer(editor))
              .expect(204),
          ),
        ...Array.from({ length: 3 }, () => createProduct(t.http, editor, busy)),
      ]);
      const res = await t.http.get(`${API}/catalog/spaces/${busy.slug}/products?limit=1`).set(bearer(editor));
      expect(res.body.total).toBe(12);
      const [rows] = await dbQuery<{ n: number }>(
        `SELECT count(*)::int AS n FROM products WHERE space_id = $1`,
        [busy.id],
      );
      expect(rows.n).toBe(12);
    });

    it('counts the rows of a space whose products predate its counter, on the first writes', async () => {
      const legacy = await createSpace(t.http, admin);
      await addMember(t.http, admin, legacy, editor, 'editor');
      await dbQuery(
        `INSERT INTO products (space_id, name) SELECT $1, 'legacy ' || g FROM generate_series(1, 7) g`,
        [legacy.id],
      );
      // Several first writes at once: they meet on one counter row, and each adds itself.
      await Promise.all(Array.from({ length: 5 }, () => createProduct(t.http, editor, legacy)));
      const res = await t.http
        .get(`${API}/catalog/spaces/${legacy.slug}/products?limit=1`)
        .set(bearer(editor));
      expect(res.body.total).toBe(12);
    });

    it('is readable by a superadmin who is not a member', async () => {
      const root = await rootUser(t.http);
      const res = await t.http.get(`${API}/catalog/spaces/${listSpace.slug}/products`).set(bearer(root));
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(4);
    });
  });

  describe('service methods for other modules', () => {
    let service: ProductsService;
    let directory: ProductDirectoryService;
    let tx: TransactionRunner;
    // Outside a transaction the helpers read on the DataSource's manager.
    let em: EntityManager;

    beforeAll(() => {
      service = t.app.get(ProductsService);
      directory = t.app.get(ProductDirectoryService);
      em = t.app.get(DataSource).manager;
      tx = t.app.get(TransactionRunner);
    });

    it('getInSpace, findByIds and ownersAndStewardsOf answer the read model and governance', async () => {
      const a = await createProduct(t.http, editor, space, {
        owner_ids: [editor.id],
        steward_ids: [viewer.id],
      });
      const b = await createProduct(t.http, editor, space);
      expect(await directory.getInSpace(em, space.id, a.id)).toEqual(a);
      const other = await createSpace(t.http, admin);
      await expect(directory.getInSpace(em, other.id, a.id)).rejects.toMatchObject({ status: 404 });
      const found = await directory.findByIds(em, [a.id, b.id, randomUUID()]);
      expect(found.map((p) => p.id).sort()).toEqual([a.id, b.id].sort());
      expect(await directory.ownersAndStewardsOf(em, [a.id, b.id])).toEqual([
        { productId: a.id, ownerIds: [editor.id], stewardIds: [viewer.id] },
      ]);
    });

    it('upsertDataset creates a dataset per table, then updates it (attributes merged)', async () => {
      const syncSpace = await createSpace(t.http, admin);
      const first = await tx.run((em) =>
        service.upsertDataset(em, null, syncSpace.id, {
          name: 'public.orders',
          description: 'Orders table',
          attributes: { schema: { id: 'uuid' } },
        }),
      );
      expect(first.created).toBe(true);
      expect(first.product).toEqual(
        expect.objectContaining({
          name: 'public.orders',
          product_type: 'dataset',
          attributes: { schema: { id: 'uuid' } },
        }),
      );
      await t.http
        .patch(`${API}/catalog/spaces/${syncSpace.slug}/products/${first.product.id}`)
        .set(bearer(admin))
        .send({ attributes: { schema: { id: 'uuid' }, owner_team: 'sales' } });
      const second = await tx.run((em) =>
        service.upsertDataset(em, null, syncSpace.id, {
          name: 'PUBLIC.orders',
          attributes: { schema: { id: 'uuid', total: 'numeric' } },
        }),
      );
      expect(second.created).toBe(false);
      expect(second.product.id).toBe(first.product.id);
      expect(second.product.description).toBe('Orders table');
      expect(second.product.attributes).toEqual({
        schema: { id: 'uuid', total: 'numeric' },
        owner_team: 'sales',
      });
      const list = await t.http.get(`${API}/catalog/spaces/${syncSpace.slug}/products`).set(bearer(admin));
      expect(list.body.total).toBe(1);
    });
  });
});
