import { DataSource } from 'typeorm';
import { DEFAULT_INSTANCE_ID } from '../../src/database/instance-ids';
import { startApp, TestApp } from '../support/app';
import { bearer, createUser, rootUser, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const KEYS = '/api/v1.0/api-keys/me/api-keys';
const ME = '/api/v1.0/auth/me';
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('API keys', () => {
  let t: TestApp;
  let root: TestUser;

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
  });
  afterAll(() => t.close());

  async function createKey(user: TestUser, body: Record<string, unknown> = {}) {
    const res = await t.http
      .post(KEYS)
      .set(bearer(user))
      .send({ name: 'ci', ...body });
    if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; key: string; prefix: string; rate_limit_tier: string };
  }

  const withKey = (key: string) => ({ Authorization: `Bearer ${key}` });

  describe('lifecycle', () => {
    it('shows the secret once, keeps only its hash, and lets it act as its creator', async () => {
      const user = await createUser(t.http);
      const created = await t.http.post(KEYS).set(bearer(user)).send({ name: '  Deploy bot  ' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'Deploy bot',
        key: expect.stringMatching(/^vk_[A-Za-z0-9_-]{43}$/),
        prefix: created.body.key.slice(0, 11),
        instance_id: DEFAULT_INSTANCE_ID,
        rate_limit_tier: 'standard',
        created_at: expect.stringMatching(/Z$/),
        last_used_at: null,
        expires_at: null,
        revoked_at: null,
      });

      const list = await t.http.get(KEYS).set(bearer(user));
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(1);
      expect(list.body.items[0]).toEqual({ ...created.body, key: undefined });
      expect(list.body.items[0]).not.toHaveProperty('key');
      expect(JSON.stringify(list.body)).not.toContain(created.body.key);

      const stored = await t.app
        .get(DataSource)
        .query(`SELECT key_hash FROM api_keys WHERE id = $1`, [created.body.id]);
      expect(stored[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(stored[0].key_hash).not.toContain(created.body.key);

      const me = await t.http.get(ME).set(withKey(created.body.key));
      expect(me.status).toBe(200);
      expect(me.body).toEqual(expect.objectContaining({ id: user.id, email: user.email }));

      const after = await t.http.get(KEYS).set(bearer(user));
      expect(after.body.items[0].last_used_at).toEqual(expect.stringMatching(/Z$/));
    });

    it('writes last_used_at at most once a minute, not on every request', async () => {
      const user = await createUser(t.http);
      const key = await createKey(user);
      await t.http.get(ME).set(withKey(key.key)).expect(200);
      const first = (await t.http.get(KEYS).set(bearer(user))).body.items[0].last_used_at;
      await sleep(20);
      await t.http.get(ME).set(withKey(key.key)).expect(200);
      const second = (await t.http.get(KEYS).set(bearer(user))).body.items[0].last_used_at;
      expect(second).toBe(first);
    });

    it('renames a key and revokes it; a revoked key answers 401 and leaves the list', async () => {
      const user = await createUser(t.http);
      const key = await createKey(user);
      const renamed = await t.http.patch(`${KEYS}/${key.id}`).set(bearer(user)).send({ name: 'renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual(expect.objectContaining({ id: key.id, name: 'renamed' }));

      const revoked = await t.http.delete(`${KEYS}/${key.id}`).set(bearer(user));
      expect(revoked.status).toBe(204);
      const res = await t.http.get(ME).set(withKey(key.key));
      expectProblem(res, 401, /malformed, expired or revoked/);
      expect(res.headers['www-authenticate']).toBe('Bearer');

      expect((await t.http.get(KEYS).set(bearer(user))).body.total).toBe(0);
      const all = await t.http.get(`${KEYS}?include_revoked=true`).set(bearer(user));
      expect(all.body.items).toEqual([
        expect.objectContaining({ id: key.id, revoked_at: expect.stringMatching(/Z$/) }),
      ]);
      // Revoking again changes nothing.
      expect((await t.http.delete(`${KEYS}/${key.id}`).set(bearer(user))).status).toBe(204);
    });

    it('stops an expired key', async () => {
      const user = await createUser(t.http);
      const key = await createKey(user, { expires_at: new Date(Date.now() + 1500).toISOString() });
      await t.http.get(ME).set(withKey(key.key)).expect(200);
      await sleep(1600);
      expectProblem(await t.http.get(ME).set(withKey(key.key)), 401);
    });

    it('refuses an expiry in the past and invalid bodies with 422', async () => {
      const user = await createUser(t.http);
      const past = await t.http
        .post(KEYS)
        .set(bearer(user))
        .send({ name: 'x', expires_at: '2001-01-01T00:00:00Z' });
      expectProblem(past, 422);
      expect(invalidFields(past)).toEqual(['expires_at']);
      const bad = await t.http
        .post(KEYS)
        .set(bearer(user))
        .send({ name: '', rate_limit_tier: 'gold', extra: 1 });
      expectProblem(bad, 422);
      expect(invalidFields(bad).sort()).toEqual(['extra', 'name', 'rate_limit_tier']);
      expectProblem(await t.http.patch(`${KEYS}/not-a-uuid`).set(bearer(user)).send({}), 422);
    });

    it("answers 404 for another user's key", async () => {
      const owner = await createUser(t.http);
      const other = await createUser(t.http);
      const key = await createKey(owner);
      expectProblem(await t.http.patch(`${KEYS}/${key.id}`).set(bearer(other)).send({ name: 'mine' }), 404);
      expectProblem(await t.http.delete(`${KEYS}/${key.id}`).set(bearer(other)), 404);
      await t.http.get(ME).set(withKey(key.key)).expect(200);
    });

    it('audits creation, tier changes and revocation and records outbox events', async () => {
      const key = await createKey(root, { rate_limit_tier: 'premium' });
      await t.http
        .patch(`${KEYS}/${key.id}`)
        .set(bearer(root))
        .send({ rate_limit_tier: 'internal' })
        .expect(200);
      await t.http.delete(`${KEYS}/${key.id}`).set(bearer(root)).expect(204);
      const db = t.app.get(DataSource);
      const audit = await db.query(
        `SELECT action, details FROM audit_log WHERE resource_type = 'api_key' AND resource_id = $1 ORDER BY created_at`,
        [key.id],
      );
      expect(audit.map((a: { action: string }) => a.action)).toEqual([
        'api_key.created',
        'api_key.tier_changed',
        'api_key.revoked',
      ]);
      expect(audit[1].details).toEqual({ from: 'premium', to: 'internal' });
      const events = await db.query(
        `SELECT type FROM outbox_events WHERE payload->>'api_key_id' = $1 ORDER BY occurred_at`,
        [key.id],
      );
      expect(events.map((e: { type: string }) => e.type)).toEqual(['api_key.created', 'api_key.revoked']);
    });
  });

  describe('tiers', () => {
    it('lets only a superadmin create or raise a key above standard', async () => {
      const user = await createUser(t.http);
      for (const tier of ['premium', 'internal']) {
        const res = await t.http.post(KEYS).set(bearer(user)).send({ name: 'fast', rate_limit_tier: tier });
        expectProblem(res, 403, new RegExp(`superadmin.*${tier}`));
      }
      const key = await createKey(user, { rate_limit_tier: 'standard' });
      expectProblem(
        await t.http.patch(`${KEYS}/${key.id}`).set(bearer(user)).send({ rate_limit_tier: 'premium' }),
        403,
      );

      const premium = await createKey(root, { rate_limit_tier: 'premium' });
      expect(premium.rate_limit_tier).toBe('premium');
      const raised = await t.http
        .patch(`${KEYS}/${premium.id}`)
        .set(bearer(root))
        .send({ rate_limit_tier: 'internal' });
      expect(raised.status).toBe(200);
      expect(raised.body.rate_limit_tier).toBe('internal');
    });

    it('lets the owner lower a key to standard', async () => {
      // A superadmin's premium key whose owner is later demoted can still be lowered by them.
      const user = await createUser(t.http);
      await t.http
        .patch(`/api/v1.0/users/${user.id}`)
        .set(bearer(root))
        .send({ is_superadmin: true })
        .expect(200);
      const key = await createKey(user, { rate_limit_tier: 'premium' });
      await t.http
        .patch(`/api/v1.0/users/${user.id}`)
        .set(bearer(root))
        .send({ is_superadmin: false })
        .expect(200);
      const lowered = await t.http
        .patch(`${KEYS}/${key.id}`)
        .set(bearer(user))
        .send({ rate_limit_tier: 'standard' });
      expect(lowered.status).toBe(200);
      expect(lowered.body.rate_limit_tier).toBe('standard');
    });
  });

  describe('who may manage keys', () => {
    it('refuses impersonation tokens on every key endpoint with 403', async () => {
      const user = await createUser(t.http);
      const key = await createKey(user);
      const imp = await t.http.post(`/api/v1.0/admin/impersonate/${user.id}`).set(bearer(root));
      expect(imp.status).toBe(200);
      const as = { Authorization: `Bearer ${imp.body.access_token}` };
      await t.http.get(ME).set(as).expect(200);
      for (const res of [
        await t.http.get(KEYS).set(as),
        await t.http.post(KEYS).set(as).send({ name: 'sneaky' }),
        await t.http.patch(`${KEYS}/${key.id}`).set(as).send({ name: 'sneaky' }),
        await t.http.delete(`${KEYS}/${key.id}`).set(as),
      ]) {
        expectProblem(res, 403, /impersonation/);
        expect(res.body.code).toBe('impersonation_forbidden');
      }
      await t.http.get(ME).set(withKey(key.key)).expect(200);
    });

    it('refuses API keys on every key endpoint with 403', async () => {
      const user = await createUser(t.http);
      const key = await createKey(user);
      const as = withKey(key.key);
      for (const res of [
        await t.http.get(KEYS).set(as),
        await t.http.post(KEYS).set(as).send({ name: 'child' }),
        await t.http.patch(`${KEYS}/${key.id}`).set(as).send({ name: 'child' }),
        await t.http.delete(`${KEYS}/${key.id}`).set(as),
      ]) {
        expectProblem(res, 403, /API key/);
        expect(res.body.code).toBe('api_key_forbidden');
      }
      expect((await t.http.get(KEYS).set(bearer(user))).body.total).toBe(1);
    });

    it('needs authentication', async () => {
      expectProblem(await t.http.get(KEYS), 401);
      expectProblem(await t.http.post(KEYS).send({ name: 'x' }), 401);
    });
  });

  describe('acting as the creator', () => {
    it("carries the creator's current superadmin right", async () => {
      const user = await createUser(t.http);
      const key = await createKey(user);
      expectProblem(await t.http.get(`/api/v1.0/users?page=1`).set(withKey(key.key)), 403);
      await t.http
        .patch(`/api/v1.0/users/${user.id}`)
        .set(bearer(root))
        .send({ is_superadmin: true })
        .expect(200);
      await t.http.get(`/api/v1.0/users?page=1`).set(withKey(key.key)).expect(200);
      await t.http
        .patch(`/api/v1.0/users/${user.id}`)
        .set(bearer(root))
        .send({ is_superadmin: false })
        .expect(200);
    });

    it('stops working while the creator is deactivated by a superadmin, and again once reactivated', async () => {
      const user = await createUser(t.http);
      const key = await createKey(user);
      await t.http
        .patch(`/api/v1.0/users/${user.id}`)
        .set(bearer(root))
        .send({ is_active: false })
        .expect(200);
      expectProblem(await t.http.get(ME).set(withKey(key.key)), 401);
      await t.http
        .patch(`/api/v1.0/users/${user.id}`)
        .set(bearer(root))
        .send({ is_active: true })
        .expect(200);
      await t.http.get(ME).set(withKey(key.key)).expect(200);
    });

    it('is revoked for good when its creator deactivates their account', async () => {
      const user = await createUser(t.http);
      const key = await createKey(user);
      await t.http.delete(ME).set(bearer(user)).expect(204);
      expectProblem(await t.http.get(ME).set(withKey(key.key)), 401);
      // Reactivation by a superadmin does not bring the key back.
      await t.http
        .patch(`/api/v1.0/users/${user.id}`)
        .set(bearer(root))
        .send({ is_active: true })
        .expect(200);
      expectProblem(await t.http.get(ME).set(withKey(key.key)), 401);
      const rows = await t.app
        .get(DataSource)
        .query(`SELECT revoked_reason FROM api_keys WHERE id = $1`, [key.id]);
      expect(rows[0].revoked_reason).toBe('account_deactivated');
    });

    it('answers 401 for an unknown key of the right shape', async () => {
      const fake = `vk_${'A'.repeat(43)}`;
      expectProblem(await t.http.get(ME).set(withKey(fake)), 401);
    });
  });
});
