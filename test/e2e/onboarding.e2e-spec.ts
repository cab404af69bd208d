import { startApp, TestApp } from '../support/app';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  login,
  TestUser,
  uniqueEmail,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';

describe('onboarding', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  /** A fresh account without a name, signed in. */
  async function newcomer(): Promise<{ token: string; id: string }> {
    const email = uniqueEmail('onb');
    const res = await t.http.post(`${API}/auth/register`).send({ email, password: 'password-123' });
    return { id: res.body.id, ...(await login(t.http, email, 'password-123')) };
  }

  async function done(user: { token: string }): Promise<Record<string, boolean>> {
    const res = await t.http.get(`${API}/users/me/onboarding`).set(bearer(user));
    expect(res.status).toBe(200);
    return Object.fromEntries(res.body.items.map((i: { key: string; done: boolean }) => [i.key, i.done]));
  }

  it('starts with every item open, the checklist shown and no tour dismissed', async () => {
    const user = await newcomer();
    const res = await t.http.get(`${API}/users/me/onboarding`).set(bearer(user));
    expect(res.body).toEqual({
      items: [
        { key: 'profile_completed', title: expect.any(String), done: false },
        { key: 'first_space', title: expect.any(String), done: false },
        { key: 'first_product', title: expect.any(String), done: false },
        { key: 'first_quality_check', title: expect.any(String), done: false },
        { key: 'notification_preferences', title: expect.any(String), done: false },
      ],
      completed_count: 0,
      total: 5,
      completed: false,
      dismissed: false,
      dismissed_tours: [],
    });
    expectProblem(await t.http.get(`${API}/users/me/onboarding`), 401);
  });

  it('flips each item as the real state changes', async () => {
    const user = await newcomer();

    await t.http.patch(`${API}/auth/me`).set(bearer(user)).send({ full_name: 'Ada' }).expect(200);
    expect((await done(user)).profile_completed).toBe(false);
    await t.http.patch(`${API}/auth/me`).set(bearer(user)).send({ full_name: 'Ada Lovelace' }).expect(200);
    expect((await done(user)).profile_completed).toBe(true);

    const owner = await createUser(t.http);
    const space = await createSpace(t.http, owner);
    await addMember(t.http, owner, space, user, 'editor');
    expect((await done(user)).first_space).toBe(true);

    expect((await done(user)).first_product).toBe(false);
    await createProduct(t.http, user, space);
    expect((await done(user)).first_product).toBe(true);

    expect((await done(user)).first_quality_check).toBe(false);
    const product = await createProduct(t.http, owner, space);
    const check = await t.http
      .post(`${API}/spaces/${space.slug}/quality/checks`)
      .set(bearer(owner))
      .send({ product_id: product.id, name: 'Rows', check_type: 'custom', severity: 'low', config: {} });
    expect(check.status).toBe(201);
    expect((await done(user)).first_quality_check).toBe(true);

    expect((await done(user)).notification_preferences).toBe(false);
    await t.http
      .patch(`${API}/preferences`)
      .set(bearer(user))
      .send({ notifications: { email_digest: 'daily' } })
      .expect(200);
    const all = await t.http.get(`${API}/users/me/onboarding`).set(bearer(user));
    expect(all.body).toEqual(expect.objectContaining({ completed_count: 5, completed: true }));

    // Leaving the only space undoes the items that depend on it.
    await t.http.delete(`${API}/spaces/${space.slug}/members/${user.id}`).set(bearer(owner)).expect(204);
    const after = await done(user);
    expect(after.first_space).toBe(false);
    expect(after.first_quality_check).toBe(false);
    expect(after.first_product).toBe(true);
  });

  it('counts a product role as a first product', async () => {
    const owner: TestUser = await createUser(t.http);
    const space = await createSpace(t.http, owner);
    const steward = await createUser(t.http);
    await addMember(t.http, owner, space, steward, 'viewer');
    expect((await done(steward)).first_product).toBe(false);
    await createProduct(t.http, owner, space, { steward_ids: [steward.id] });
    expect((await done(steward)).first_product).toBe(true);
  });

  it('stores dismissed tours and the dismissed checklist per user', async () => {
    const user = await newcomer();
    const other = await newcomer();
    const res = await t.http
      .patch(`${API}/users/me/onboarding`)
      .set(bearer(user))
      .send({ dismissed_tours: ['catalog-intro', 'quality.checks'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({ dismissed_tours: ['catalog-intro', 'quality.checks'], dismissed: false }),
    );
    const hidden = await t.http
      .patch(`${API}/users/me/onboarding`)
      .set(bearer(user))
      .send({ dismissed: true });
    expect(hidden.body).toEqual(
      expect.objectContaining({ dismissed: true, dismissed_tours: ['catalog-intro', 'quality.checks'] }),
    );
    const reset = await t.http
      .patch(`${API}/users/me/onboarding`)
      .set(bearer(user))
      .send({ dismissed_tours: [] });
    expect(reset.body.dismissed_tours).toEqual([]);
    expect((await t.http.get(`${API}/users/me/onboarding`).set(bearer(other))).body.dismissed_tours).toEqual(
      [],
    );

    const bad = await t.http
      .patch(`${API}/users/me/onboarding`)
      .set(bearer(user))
      .send({ dismissed_tours: ['Bad Key'], items: [] });
    expectProblem(bad, 422);
    expect(invalidFields(bad)).toEqual(expect.arrayContaining(['dismissed_tours', 'items']));
  });
});
