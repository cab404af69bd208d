import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import {
  addMember,
  bearer,
  createSpace,
  createUser,
  login,
  rootUser,
  TestUser,
  uniqueEmail,
} from '../support/factories';
import { expectProblem } from '../support/problem';

const API = '/api/v1.0';
const SCIM = `${API}/scim/v2`;
const SCIM_JSON = 'application/scim+json';
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** Asserts a SCIM error body (RFC 7644 §3.12) with the status and, when given, the scimType. */
function expectScimError(res: Response, status: number, scimType?: string): void {
  if (res.status !== status)
    throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
  expect(res.body).toEqual(
    expect.objectContaining({ schemas: [ERROR_SCHEMA], status: String(status), detail: expect.any(String) }),
  );
  if (scimType) expect(res.body.scimType).toBe(scimType);
}

function scimUser(email: string, extra: Record<string, unknown> = {}) {
  return {
    schemas: [USER_SCHEMA],
    userName: email,
    externalId: `ext-${randomUUID().slice(0, 8)}`,
    name: { givenName: 'Grace', familyName: 'Hopper' },
    emails: [{ primary: true, value: email, type: 'work' }],
    active: true,
    ...extra,
  };
}

describe('SCIM 2.0', () => {
  let t: TestApp;
  let root: TestUser;
  let token: string;
  const scim = () => ({ Authorization: `Bearer ${token}` });

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    const res = await t.http
      .post(`${API}/admin/scim-tokens`)
      .set(bearer(root))
      .send({ name: 'Okta provisioning' });
    expect(res.status).toBe(201);
    token = res.body.token;
  });
  afterAll(() => t.close());

  async function createScimUser(email = uniqueEmail('scim'), extra: Record<string, unknown> = {}) {
    const res = await t.http.post(`${SCIM}/Users`).set(scim()).type(SCIM_JSON).send(scimUser(email, extra));
    if (res.status !== 201) throw new Error(`SCIM create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; userName: string; externalId: string; meta: { version: string } };
  }

  describe('SCIM tokens', () => {
    it('shows the token once, lists without it, and a revoked or expired token gets a 401 SCIM error', async () => {
      const created = await t.http
        .post(`${API}/admin/scim-tokens`)
        .set(bearer(root))
        .send({ name: 'Entra', expires_at: new Date(Date.now() + 3600_000).toISOString() });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'Entra',
        token: expect.stringMatching(/^vscim_/),
        created_at: expect.stringMatching(/Z$/),
        expires_at: expect.stringMatching(/Z$/),
      });
      const stored = await dbQuery<{ token_hash: string }>(
        `SELECT token_hash FROM scim_tokens WHERE id = $1`,
        [created.body.id],
      );
      expect(stored[0].token_hash).not.toContain(created.body.token);

      const list = await t.http.get(`${API}/admin/scim-tokens`).set(bearer(root));
      expect(list.status).toBe(200);
      const listed = list.body.items.find((i: { id: string }) => i.id === created.body.id);
      expect(listed).toEqual(expect.objectContaining({ name: 'Entra', created_by: root.id }));
      expect(listed).not.toHaveProperty('token');
      expect(list.body.total).toBeGreaterThanOrEqual(2);

      const own = { Authorization: `Bearer ${created.body.token}` };
      expect((await t.http.get(`${SCIM}/ServiceProviderConfig`).set(own)).status).toBe(200);
      expect(
        (await t.http.delete(`${API}/admin/scim-tokens/${created.body.id}`).set(bearer(root))).status,
      ).toBe(204);
      const revoked = await t.http.get(`${SCIM}/Users`).set(own);
      expectScimError(revoked, 401);
      expect(revoked.headers['www-authenticate']).toMatch(/^Bearer/);
      expectProblem(
        await t.http.delete(`${API}/admin/scim-tokens/${created.body.id}`).set(bearer(root)),
        404,
      );

      // An expired token (its expiry moved into the past in the database).
      const expiring = await t.http
        .post(`${API}/admin/scim-tokens`)
        .set(bearer(root))
        .send({ name: 'short' });
      await dbQuery(`UPDATE scim_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        expiring.body.id,
      ]);
      expectScimError(
        await t.http.get(`${SCIM}/Users`).set({ Authorization: `Bearer ${expiring.body.token}` }),
        401,
      );
    });

    it('is superadmin-only, and refuses an expiry in the past', async () => {
      const user = await createUser(t.http);
      expectProblem(await t.http.post(`${API}/admin/scim-tokens`).set(bearer(user)).send({ name: 'x' }), 403);
      expectProblem(await t.http.get(`${API}/admin/scim-tokens`).set(bearer(user)), 403);
      expectProblem(
        await t.http
          .post(`${API}/admin/scim-tokens`)
          .set(bearer(root))
          .send({ name: 'x', expires_at: '2000-01-01T00:00:00Z' }),
        422,
      );
      expectProblem(
        await t.http.post(`${API}/admin/scim-tokens`).set(bearer(root)).send({ name: 'x', extra: 1 }),
        422,
      );
    });

    it('SCIM routes take SCIM tokens only: no token, a user JWT or an API key get 401 SCIM errors', async () => {
      expectScimError(await t.http.get(`${SCIM}/Users`), 401);
      expectScimError(await t.http.get(`${SCIM}/Users`).set(bearer(root)), 401);
      const key = await t.http.post(`${API}/api-keys/me/api-keys`).set(bearer(root)).send({ name: 'k' });
      expectScimError(
        await t.http.get(`${SCIM}/Users`).set({ Authorization: `Bearer ${key.body.key}` }),
        401,
      );
    });
  });

  describe('discovery', () => {
    it('serves ServiceProviderConfig, ResourceTypes and Schemas as application/scim+json', async () => {
      const config = await t.http.get(`${SCIM}/ServiceProviderConfig`).set(scim());
      expect(config.status).toBe(200);
      expect(config.headers['content-type']).toMatch(/^application\/scim\+json/);
      // Exempt from the general (per-address) rate limits: an identity provider's full sync would exceed them.
      expect(config.headers['x-ratelimit-limit']).toBeUndefined();
      expect(config.body).toEqual(
        expect.objectContaining({
          patch: { supported: true },
          bulk: expect.objectContaining({ supported: false }),
          filter: { supported: true, maxResults: 200 },
          etag: { supported: true },
          authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken' })],
        }),
      );
      const types = await t.http.get(`${SCIM}/ResourceTypes`).set(scim());
      expect(types.body.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group']);
      const schemas = await t.http.get(`${SCIM}/Schemas`).set(scim());
      expect(schemas.body.Resources.map((r: { id: string }) => r.id)).toEqual([
        USER_SCHEMA,
        GROUP_SCHEMA,
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
      ]);
      const userSchema = await t.http.get(`${SCIM}/Schemas/${USER_SCHEMA}`).set(scim());
      expect(userSchema.status).toBe(200);
      expect(userSchema.body.attributes.map((a: { name: string }) => a.name)).toEqual(
        expect.arrayContaining(['userName', 'externalId', 'name', 'emails', 'active']),
      );
      expect((await t.http.get(`${SCIM}/ResourceTypes/Group`).set(scim())).body.endpoint).toBe('/Groups');
      expectScimError(await t.http.get(`${SCIM}/ResourceTypes/Device`).set(scim()), 404);
      expectScimError(await t.http.get(`${SCIM}/Schemas/urn:nope`).set(scim()), 404);
    });
  });

  describe('Users', () => {
    it('creates a user (201, Location, ETag, meta) from an application/scim+json body, and gets it', async () => {
      const email = uniqueEmail('Create').toUpperCase();
      const res = await t.http.post(`${SCIM}/Users`).set(scim()).type(SCIM_JSON).send(scimUser(email));
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
      expect(res.body).toEqual(
        expect.objectContaining({
          schemas: [USER_SCHEMA],
          id: expect.any(String),
          // userName is kept as sent; the account email is lowercased.
          userName: email,
          externalId: expect.stringMatching(/^ext-/),
          name: expect.objectContaining({ givenName: 'Grace', familyName: 'Hopper' }),
          emails: [{ value: email.toLowerCase(), type: 'work', primary: true }],
          active: true,
          meta: {
            resourceType: 'User',
            created: expect.stringMatching(/Z$/),
            lastModified: expect.stringMatching(/Z$/),
            location: `http://app.verity.test${SCIM}/Users/${res.body.id}`,
            version: expect.stringMatching(/^W\/"\d+"$/),
          },
        }),
      );
      expect(res.headers.location).toBe(res.body.meta.location);
      expect(res.headers.etag).toBe(res.body.meta.version);

      const got = await t.http.get(`${SCIM}/Users/${res.body.id}`).set(scim());
      expect(got.status).toBe(200);
      expect(got.headers.etag).toBe(res.body.meta.version);
      expect(got.body.userName).toBe(email);
      // The account exists in Verity under that email.
      const root404 = await t.http.get(`${API}/users/${res.body.id}`).set(bearer(root));
      expect(root404.body.email).toBe(email.toLowerCase());
    });

    it('answers 409 uniqueness for a taken userName (any case), and 404 for an unknown or malformed id', async () => {
      const user = await createScimUser();
      const dup = await t.http
        .post(`${SCIM}/Users`)
        .set(scim())
        .type(SCIM_JSON)
        .send(scimUser(user.userName.toUpperCase()));
      expectScimError(dup, 409, 'uniqueness');
      // Another login with the email of an account that exists (not provisioned by SCIM) is taken too.
      const other = await createUser(t.http);
      expectScimError(
        await t.http
          .post(`${SCIM}/Users`)
          .set(scim())
          .send(
            scimUser(`Login-${randomUUID().slice(0, 8)}@tenant.example`, {
              emails: [{ type: 'work', value: other.email }],
            }),
          ),
        409,
        'uniqueness',
      );
      expectScimError(await t.http.get(`${SCIM}/Users/${randomUUID()}`).set(scim()), 404);
      expectScimError(await t.http.get(`${SCIM}/Users/not-a-uuid`).set(scim()), 404);
    });

    it('refuses a user without a userName, or without any email (400 invalidValue), and bad JSON (400)', async () => {
      expectScimError(
        await t.http
          .post(`${SCIM}/Users`)
          .set(scim())
          .send({ schemas: [USER_SCHEMA], name: { givenName: 'x' } }),
        400,
        'invalidValue',
      );
      expectScimError(
        await t.http
          .post(`${SCIM}/Users`)
          .set(scim())
          .send(scimUser('no-at-sign', { emails: undefined })),
        400,
        'invalidValue',
      );
      expectScimError(
        await t.http.post(`${SCIM}/Users`).set(scim()).type(SCIM_JSON).send('{"userName": '),
        400,
        'invalidSyntax',
      );
    });

    it('filters on userName eq (found and empty), and on the other attributes with co, sw, and, or', async () => {
      const tag = randomUUID().slice(0, 8);
      const a = await createScimUser(`alpha-${tag}@example.test`, {
        name: { givenName: 'Alma', familyName: 'Zed' },
      });
      const b = await createScimUser(`beta-${tag}@example.test`, {
        name: { givenName: 'Bert', familyName: 'Zed' },
      });
      const found = await t.http
        .get(`${SCIM}/Users`)
        .query({ filter: `userName eq "${a.userName.toUpperCase()}"` })
        .set(scim());
      expect(found.status).toBe(200);
      expect(found.body).toEqual({
        schemas: [LIST_SCHEMA],
        totalResults: 1,
        startIndex: 1,
        itemsPerPage: 1,
        Resources: [expect.objectContaining({ id: a.id, userName: a.userName })],
      });
      const none = await t.http
        .get(`${SCIM}/Users`)
        .query({ filter: `userName eq "nobody-${tag}@example.test"` })
        .set(scim());
      expect(none.body).toEqual({
        schemas: [LIST_SCHEMA],
        totalResults: 0,
        startIndex: 1,
        itemsPerPage: 0,
        Resources: [],
      });

      const ids = async (filter: string) => {
        const res = await t.http.get(`${SCIM}/Users`).query({ filter }).set(scim());
        expect(res.status).toBe(200);
        return res.body.Resources.map((r: { id: string }) => r.id).sort();
      };
      expect(await ids(`userName co "${tag}"`)).toEqual([a.id, b.id].sort());
      expect(await ids(`userName sw "alpha-${tag}"`)).toEqual([a.id]);
      expect(await ids(`emails.value eq "${b.userName}"`)).toEqual([b.id]);
      expect(await ids(`externalId eq "${a.externalId}"`)).toEqual([a.id]);
      expect(await ids(`userName co "${tag}" and name.givenName eq "bert"`)).toEqual([b.id]);
      expect(
        await ids(`name.familyName eq "Zed" and (userName sw "alpha-${tag}" or userName sw "beta-${tag}")`),
      ).toEqual([a.id, b.id].sort());
      expect(await ids(`userName co "${tag}" and active eq true`)).toEqual([a.id, b.id].sort());
      expect(await ids(`displayName eq "Alma Zed" and userName co "${tag}"`)).toEqual([a.id]);
    });

    it('answers 400 invalidFilter for a filter it cannot read or an operator it does not support', async () => {
      for (const filter of [
        'userName eq',
        'userName xx "a"',
        'userName gt "a"',
        'nosuch eq "a"',
        '(userName eq "a"',
        'active co "x"',
      ]) {
        expectScimError(
          await t.http.get(`${SCIM}/Users`).query({ filter }).set(scim()),
          400,
          'invalidFilter',
        );
      }
    });

    it('pages with a 1-based startIndex and count', async () => {
      const tag = randomUUID().slice(0, 8);
      const created = [];
      for (let i = 0; i < 5; i++) created.push((await createScimUser(`page${i}-${tag}@example.test`)).id);
      const page = async (startIndex: number, count: number) =>
        (
          await t.http
            .get(`${SCIM}/Users`)
            .query({ filter: `userName co "${tag}"`, startIndex, count })
            .set(scim())
        ).body;
      const first = await page(1, 2);
      expect(first).toEqual(expect.objectContaining({ totalResults: 5, startIndex: 1, itemsPerPage: 2 }));
      const second = await page(3, 2);
      const third = await page(5, 2);
      expect(third.itemsPerPage).toBe(1);
      const seen = [...first.Resources, ...second.Resources, ...third.Resources].map(
        (r: { id: string }) => r.id,
      );
      expect(seen).toEqual(created);
      // Unfiltered (Okta's first call): every visible account; count is capped at 200.
      const all = await t.http.get(`${SCIM}/Users`).query({ startIndex: 1, count: 1 }).set(scim());
      expect(all.body).toEqual(expect.objectContaining({ startIndex: 1, itemsPerPage: 1 }));
      expect(all.body.totalResults).toBeGreaterThanOrEqual(5);
      const capped = await t.http.get(`${SCIM}/Users`).query({ count: 5000 }).set(scim());
      expect(capped.body.itemsPerPage).toBe(Math.min(200, capped.body.totalResults));
      const countOnly = await page(1, 0);
      expect(countOnly).toEqual(expect.objectContaining({ totalResults: 5, itemsPerPage: 0, Resources: [] }));
    });

    it('PATCH replace of active as the string "False" deactivates the user and revokes their sessions and API keys', async () => {
      const email = uniqueEmail('deprov');
      const scimmed = await createScimUser(email);
      // The user gets a password through the reset flow's store, then signs in and makes an API key.
      await dbQuery(
        `UPDATE users SET password_hash = (SELECT password_hash FROM users WHERE email = $2) WHERE id = $1`,
        [scimmed.id, root.email],
      );
      const session = await login(t.http, email, root.password);
      const key = await t.http
        .post(`${API}/api-keys/me/api-keys`)
        .set(bearer(session))
        .send({ name: 'mine' });
      expect(key.status).toBe(201);
      await t.http.get(`${API}/auth/me`).set(bearer(session)).expect(200);

      const res = await t.http
        .patch(`${SCIM}/Users/${scimmed.id}`)
        .set(scim())
        .type(SCIM_JSON)
        .send({ schemas: [PATCH_SCHEMA], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
      expect(res.status).toBe(200);
      expect(res.body.active).toBe(false);
      expect(res.headers.etag).not.toBe(scimmed.meta.version);

      expectProblem(await t.http.get(`${API}/auth/me`).set(bearer(session)), 401);
      expectProblem(await t.http.get(`${API}/auth/me`).set({ Authorization: `Bearer ${key.body.key}` }), 401);
      expectProblem(
        await t.http.post(`${API}/auth/refresh`).send({ refresh_token: session.refreshToken }),
        401,
      );
      const audit = await dbQuery<{ action: string; details: { scim_token_id: string } }>(
        `SELECT action, details FROM audit_log WHERE resource_id = $1 AND action LIKE 'scim.%' ORDER BY created_at`,
        [scimmed.id],
      );
      expect(audit.map((a) => a.action)).toEqual(['scim.user_created', 'scim.user_patched']);

      // "True" (any case) reactivates.
      const back = await t.http
        .patch(`${SCIM}/Users/${scimmed.id}`)
        .set(scim())
        .send({ schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', value: { active: 'true' } }] });
      expect(back.body.active).toBe(true);
    });

    it('PATCH handles name paths, emails[type eq "work"].value, a no-path object with dotted keys (Entra), and remove', async () => {
      const user = await createScimUser();
      const newEmail = uniqueEmail('renamed');
      const res = await t.http
        .patch(`${SCIM}/Users/${user.id}`)
        .set(scim())
        .send({
          schemas: [PATCH_SCHEMA],
          Operations: [
            { op: 'replace', path: 'name.givenName', value: 'Ada' },
            { op: 'Add', path: 'emails[type eq "work"].value', value: newEmail },
            {
              op: 'Replace',
              value: { 'name.familyName': 'Lovelace', externalId: 'entra-42', title: 'ignored' },
            },
            {
              op: 'add',
              path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department',
              value: 'R&D',
            },
          ],
        });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          // The work email changes the account email, never the login.
          userName: user.userName,
          emails: [{ value: newEmail, type: 'work', primary: true }],
          'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'R&D' },
          externalId: 'entra-42',
          name: expect.objectContaining({ givenName: 'Ada', familyName: 'Lovelace' }),
        }),
      );
      const removed = await t.http
        .patch(`${SCIM}/Users/${user.id}`)
        .set(scim())
        .send({ schemas: [PATCH_SCHEMA], Operations: [{ op: 'remove', path: 'externalId' }] });
      expect(removed.body).not.toHaveProperty('externalId');

      expectScimError(
        await t.http
          .patch(`${SCIM}/Users/${user.id}`)
          .set(scim())
          .send({ schemas: [PATCH_SCHEMA], Operations: [{ op: 'jump', path: 'active', value: true }] }),
        400,
        'invalidValue',
      );
      expectScimError(
        await t.http
          .patch(`${SCIM}/Users/${user.id}`)
          .set(scim())
          .send({ schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: 'maybe' }] }),
        400,
        'invalidValue',
      );
      expectScimError(
        await t.http.patch(`${SCIM}/Users/${user.id}`).set(scim()).send({ Operations: [] }),
        400,
        'invalidValue',
      );
    });

    it('PUT replaces the user, honours If-Match (412 when stale), and keeps userName unique (409)', async () => {
      const user = await createScimUser();
      const other = await createScimUser();
      const body = scimUser(user.userName, {
        name: { givenName: 'New', familyName: 'Name' },
        externalId: 'put-1',
      });
      const stale = await t.http
        .put(`${SCIM}/Users/${user.id}`)
        .set(scim())
        .set('If-Match', 'W/"1"')
        .send(body);
      expectScimError(stale, 412);
      const res = await t.http
        .put(`${SCIM}/Users/${user.id}`)
        .set(scim())
        .set('If-Match', user.meta.version)
        .send(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          externalId: 'put-1',
          name: expect.objectContaining({ givenName: 'New', familyName: 'Name' }),
        }),
      );
      expect(res.headers.etag).toBe(res.body.meta.version);
      expectScimError(
        await t.http.put(`${SCIM}/Users/${user.id}`).set(scim()).send(scimUser(other.userName)),
        409,
        'uniqueness',
      );
    });

    it('DELETE deprovisions: the account is deactivated, hidden from SCIM (404), and comes back on a new POST', async () => {
      const user = await createScimUser();
      expect((await t.http.delete(`${SCIM}/Users/${user.id}`).set(scim())).status).toBe(204);
      expectScimError(await t.http.get(`${SCIM}/Users/${user.id}`).set(scim()), 404);
      const listed = await t.http
        .get(`${SCIM}/Users`)
        .query({ filter: `userName eq "${user.userName}"` })
        .set(scim());
      expect(listed.body.totalResults).toBe(0);
      expectScimError(await t.http.delete(`${SCIM}/Users/${user.id}`).set(scim()), 404);
      const account = await t.http.get(`${API}/users/${user.id}`).set(bearer(root));
      expect(account.body.is_active).toBe(false);

      const again = await t.http.post(`${SCIM}/Users`).set(scim()).send(scimUser(user.userName));
      expect(again.status).toBe(201);
      expect(again.body).toEqual(expect.objectContaining({ id: user.id, active: true }));
    });
  });

  describe('Groups', () => {
    it('creates a <space-slug>:<role> group whose members join the space, and adds and removes members by PATCH', async () => {
      const owner = await createUser(t.http);
      const space = await createSpace(t.http, owner);
      const alice = await createScimUser();
      const bob = await createScimUser();

      const created = await t.http
        .post(`${SCIM}/Groups`)
        .set(scim())
        .type(SCIM_JSON)
        .send({
          schemas: [GROUP_SCHEMA],
          displayName: `${space.slug}:editor`,
          externalId: 'grp-1',
          members: [{ value: alice.id }],
        });
      expect(created.status).toBe(201);
      expect(created.body).toEqual(
        expect.objectContaining({
          schemas: [GROUP_SCHEMA],
          id: expect.any(String),
          displayName: `${space.slug}:editor`,
          externalId: 'grp-1',
          members: [expect.objectContaining({ value: alice.id, display: alice.userName })],
          meta: expect.objectContaining({ resourceType: 'Group', version: expect.stringMatching(/^W\//) }),
        }),
      );
      expect(created.headers.etag).toBe(created.body.meta.version);
      const groupId = created.body.id;
      const roleOf = async (userId: string) => {
        const res = await t.http.get(`${API}/spaces/${space.slug}/members`).set(bearer(owner));
        return res.body.items.find((m: { user_id: string }) => m.user_id === userId)?.role;
      };
      expect(await roleOf(alice.id)).toBe('editor');

      const added = await t.http
        .patch(`${SCIM}/Groups/${groupId}`)
        .set(scim())
        .send({
          schemas: [PATCH_SCHEMA],
          Operations: [{ op: 'Add', path: 'members', value: [{ value: bob.id }] }],
        });
      expect(added.status).toBe(200);
      expect(added.body.members.map((m: { value: string }) => m.value).sort()).toEqual(
        [alice.id, bob.id].sort(),
      );
      expect(await roleOf(bob.id)).toBe('editor');

      const removed = await t.http
        .patch(`${SCIM}/Groups/${groupId}`)
        .set(scim())
        .send({
          schemas: [PATCH_SCHEMA],
          Operations: [{ op: 'Remove', path: `members[value eq "${alice.id}"]` }],
        });
      expect(removed.body.members.map((m: { value: string }) => m.value)).toEqual([bob.id]);
      expect(await roleOf(alice.id)).toBeUndefined();

      // Entra removes with path "members" and a value list.
      await t.http
        .patch(`${SCIM}/Groups/${groupId}`)
        .set(scim())
        .send({
          schemas: [PATCH_SCHEMA],
          Operations: [{ op: 'remove', path: 'members', value: [{ value: bob.id }] }],
        })
        .expect(200);
      expect(await roleOf(bob.id)).toBeUndefined();

      const byName = await t.http
        .get(`${SCIM}/Groups`)
        .query({ filter: `displayName eq "${space.slug}:editor"`, excludedAttributes: 'members' })
        .set(scim());
      expect(byName.body.totalResults).toBe(1);
      expect(byName.body.Resources[0]).not.toHaveProperty('members');
      expect(byName.body.Resources[0].id).toBe(groupId);

      const audit = await dbQuery<{ action: string }>(
        `SELECT action FROM audit_log WHERE resource_id = $1 AND action LIKE 'scim.%' ORDER BY created_at, id`,
        [groupId],
      );
      expect(audit.map((a) => a.action)).toEqual(
        expect.arrayContaining(['scim.group_created', 'scim.group_members_changed']),
      );
    });

    it('keeps the last admin of a space (409), takes any name (409 on a duplicate), renames, refuses unknown members (400)', async () => {
      const owner = await createUser(t.http);
      const space = await createSpace(t.http, owner);
      const first = await createScimUser();
      const admins = await t.http
        .post(`${SCIM}/Groups`)
        .set(scim())
        .send({
          schemas: [GROUP_SCHEMA],
          displayName: `${space.slug}:admin`,
          members: [{ value: first.id }],
        });
      expect(admins.status).toBe(201);
      // Members are the group's own, not every admin of the space.
      expect(admins.body.members.map((m: { value: string }) => m.value)).toEqual([first.id]);
      // The owner leaves: the group's member is the only admin now.
      expect(
        (await t.http.delete(`${API}/spaces/${space.slug}/members/${owner.id}`).set(bearer(owner))).status,
      ).toBe(204);
      const lastAdmin = await t.http
        .patch(`${SCIM}/Groups/${admins.body.id}`)
        .set(scim())
        .send({
          schemas: [PATCH_SCHEMA],
          Operations: [{ op: 'remove', path: `members[value eq "${first.id}"]` }],
        });
      expectScimError(lastAdmin, 409);
      // Replacing the admin in one request works: one statement settles the space.
      const successor = await createScimUser();
      const swapped = await t.http
        .patch(`${SCIM}/Groups/${admins.body.id}`)
        .set(scim())
        .send({
          schemas: [PATCH_SCHEMA],
          Operations: [{ op: 'replace', path: 'members', value: [{ value: successor.id }] }],
        });
      expect(swapped.status).toBe(200);
      expect(swapped.body.members.map((m: { value: string }) => m.value)).toEqual([successor.id]);
      const roles = await dbQuery<{ user_id: string; role: string }>(
        `SELECT user_id, role FROM space_memberships WHERE space_id = $1 ORDER BY user_id`,
        [space.id],
      );
      expect(roles).toEqual([{ user_id: successor.id, role: 'admin' }]);

      // Any name: an unknown space in a `<slug>:<role>` name or a plain name is a group without a mapping.
      const unmapped = await t.http
        .post(`${SCIM}/Groups`)
        .set(scim())
        .send({ displayName: `no-such-space-${randomUUID().slice(0, 8)}:viewer` });
      expect(unmapped.status).toBe(201);
      const plainName = `Finance Team ${randomUUID().slice(0, 8)}`;
      const plain = await t.http.post(`${SCIM}/Groups`).set(scim()).send({ displayName: plainName });
      expect(plain.status).toBe(201);
      expect(plain.body.displayName).toBe(plainName);
      expectScimError(
        await t.http.post(`${SCIM}/Groups`).set(scim()).send({ displayName: plainName.toUpperCase() }),
        409,
        'uniqueness',
      );
      expectScimError(
        await t.http
          .post(`${SCIM}/Groups`)
          .set(scim())
          .send({ displayName: `${space.slug}:ADMIN` }),
        409,
        'uniqueness',
      );
      const renamed = await t.http
        .patch(`${SCIM}/Groups/${admins.body.id}`)
        .set(scim())
        .send({
          schemas: [PATCH_SCHEMA],
          Operations: [{ op: 'replace', path: 'displayName', value: 'Space admins' }],
        });
      expect(renamed.status).toBe(200);
      expect(renamed.body.displayName).toBe('Space admins');
      // The mapping follows the group, not its name.
      expect(
        await dbQuery(`SELECT role FROM space_memberships WHERE space_id = $1 AND user_id = $2`, [
          space.id,
          successor.id,
        ]),
      ).toEqual([{ role: 'admin' }]);
      expectScimError(
        await t.http
          .patch(`${SCIM}/Groups/${admins.body.id}`)
          .set(scim())
          .send({
            schemas: [PATCH_SCHEMA],
            Operations: [{ op: 'add', path: 'members', value: [{ value: randomUUID() }] }],
          }),
        400,
        'invalidValue',
      );
      expectScimError(
        await t.http
          .post(`${SCIM}/Groups`)
          .set(scim())
          .send({ displayName: 'x'.repeat(257) }),
        400,
        'invalidValue',
      );
    });

    it('PUT sets the member list, raising a direct viewer to the group role; DELETE revokes it and keeps the direct grant', async () => {
      const owner = await createUser(t.http);
      const space = await createSpace(t.http, owner);
      const viewer = await createUser(t.http);
      await addMember(t.http, owner, space, viewer, 'viewer');
      const group = await t.http
        .post(`${SCIM}/Groups`)
        .set(scim())
        .send({ displayName: `${space.slug}:editor` });
      const put = await t.http
        .put(`${SCIM}/Groups/${group.body.id}`)
        .set(scim())
        .set('If-Match', group.body.meta.version)
        .send({
          schemas: [GROUP_SCHEMA],
          displayName: `${space.slug}:editor`,
          members: [{ value: viewer.id }],
        });
      expect(put.status).toBe(200);
      expect(put.body.members.map((m: { value: string }) => m.value)).toEqual([viewer.id]);
      const members = await t.http.get(`${API}/spaces/${space.slug}/members`).set(bearer(owner));
      expect(members.body.items.find((m: { user_id: string }) => m.user_id === viewer.id).role).toBe(
        'editor',
      );

      expect(members.body.items.find((m: { user_id: string }) => m.user_id === viewer.id)).toEqual(
        expect.objectContaining({
          direct_role: 'viewer',
          granted_by: [
            { source: 'direct', role: 'viewer' },
            {
              source: 'scim_group',
              role: 'editor',
              group_id: group.body.id,
              group_name: `${space.slug}:editor`,
            },
          ],
        }),
      );

      expect((await t.http.delete(`${SCIM}/Groups/${group.body.id}`).set(scim())).status).toBe(204);
      expectScimError(await t.http.get(`${SCIM}/Groups/${group.body.id}`).set(scim()), 404);
      const after = await t.http.get(`${API}/spaces/${space.slug}/members`).set(bearer(owner));
      expect(after.body.items.find((m: { user_id: string }) => m.user_id === viewer.id)).toEqual(
        expect.objectContaining({
          role: 'viewer',
          direct_role: 'viewer',
          granted_by: [{ source: 'direct', role: 'viewer' }],
        }),
      );
    });
  });

  describe('group mappings (/admin/scim-group-mappings)', () => {
    it("creates, lists, changes and deletes mappings; each change recomputes the members' roles (audited)", async () => {
      const owner = await createUser(t.http);
      const space = await createSpace(t.http, owner);
      const member = await createScimUser();
      const direct = await createScimUser();
      await addMember(t.http, owner, space, direct, 'editor');
      const group = await t.http
        .post(`${SCIM}/Groups`)
        .set(scim())
        .send({
          displayName: `Analysts ${randomUUID().slice(0, 8)}`,
          members: [{ value: member.id }, { value: direct.id }],
        });
      expect(group.status).toBe(201);
      const roleOf = async (userId: string) =>
        (
          await dbQuery<{ role: string; direct_role: string | null }>(
            `SELECT role, direct_role FROM space_memberships WHERE space_id = $1 AND user_id = $2`,
            [space.id, userId],
          )
        )[0] ?? null;
      expect(await roleOf(member.id)).toBeNull();

      const created = await t.http
        .post(`${API}/admin/scim-group-mappings`)
        .set(bearer(root))
        .send({ group_id: group.body.id, space: space.slug, role: 'viewer' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        group_id: group.body.id,
        group_name: group.body.displayName,
        space_id: space.id,
        space: space.slug,
        role: 'viewer',
        member_count: 2,
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      });
      expect(await roleOf(member.id)).toEqual({ role: 'viewer', direct_role: null });
      // A direct editor stays an editor: the group's viewer role is below.
      expect(await roleOf(direct.id)).toEqual({ role: 'editor', direct_role: 'editor' });

      const list = await t.http
        .get(`${API}/admin/scim-group-mappings`)
        .query({ space: space.slug })
        .set(bearer(root));
      expect(list.body).toEqual({ items: [created.body], total: 1 });

      const raised = await t.http
        .patch(`${API}/admin/scim-group-mappings/${created.body.id}`)
        .set(bearer(root))
        .send({ role: 'admin' });
      expect(raised.status).toBe(200);
      expect(raised.body.role).toBe('admin');
      expect(await roleOf(member.id)).toEqual({ role: 'admin', direct_role: null });
      expect(await roleOf(direct.id)).toEqual({ role: 'admin', direct_role: 'editor' });

      // Removing a direct grant keeps the group's role; a member only through groups cannot be removed directly.
      expect(
        (await t.http.delete(`${API}/spaces/${space.slug}/members/${direct.id}`).set(bearer(owner))).status,
      ).toBe(204);
      expect(await roleOf(direct.id)).toEqual({ role: 'admin', direct_role: null });
      expectProblem(
        await t.http.delete(`${API}/spaces/${space.slug}/members/${member.id}`).set(bearer(owner)),
        409,
      );
      // The owner leaves; the group's members are then the only admins, so the mapping cannot go.
      expect(
        (await t.http.delete(`${API}/spaces/${space.slug}/members/${owner.id}`).set(bearer(root))).status,
      ).toBe(204);
      expectProblem(
        await t.http.delete(`${API}/admin/scim-group-mappings/${created.body.id}`).set(bearer(root)),
        409,
        /last admin/,
      );
      await addMember(t.http, root, space, owner, 'admin');
      expect(
        (await t.http.delete(`${API}/admin/scim-group-mappings/${created.body.id}`).set(bearer(root))).status,
      ).toBe(204);
      expect(await roleOf(member.id)).toBeNull();
      expect(await roleOf(direct.id)).toBeNull();

      const audit = await dbQuery<{ action: string }>(
        `SELECT action FROM audit_log WHERE resource_id = $1 ORDER BY created_at, id`,
        [created.body.id],
      );
      expect(audit.map((a) => a.action)).toEqual([
        'scim.group_mapping_created',
        'scim.group_mapping_changed',
        'scim.group_mapping_deleted',
      ]);
    });

    it('refuses unknown groups and spaces (422), a second mapping of a group in a space (409), non-superadmins (403)', async () => {
      const owner = await createUser(t.http);
      const space = await createSpace(t.http, owner);
      const group = await t.http
        .post(`${SCIM}/Groups`)
        .set(scim())
        .send({ displayName: `${space.slug}:viewer` });
      const send = (body: Record<string, unknown>, who: TestUser = root) =>
        t.http.post(`${API}/admin/scim-group-mappings`).set(bearer(who)).send(body);
      expectProblem(await send({ group_id: randomUUID(), space: space.slug, role: 'viewer' }), 422);
      expectProblem(await send({ group_id: group.body.id, space: 'no-such-space', role: 'viewer' }), 422);
      expectProblem(await send({ group_id: group.body.id, space: space.slug, role: 'owner' }), 422);
      // The shortcut name mapped it at creation.
      expectProblem(await send({ group_id: group.body.id, space: space.slug, role: 'editor' }), 409);
      expectProblem(await send({ group_id: group.body.id, space: space.slug, role: 'editor' }, owner), 403);
      expectProblem(
        await t.http
          .patch(`${API}/admin/scim-group-mappings/${randomUUID()}`)
          .set(bearer(root))
          .send({ role: 'viewer' }),
        404,
      );
    });
  });
});
