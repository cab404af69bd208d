import { randomUUID } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { createSpace, createUser, rootUser, TestSpace, TestUser } from '../support/factories';
import {
  expectStatus,
  GROUP_SCHEMA,
  LIST_SCHEMA,
  mapGroup,
  memberIds,
  patchOp,
  restView,
  SCIM,
  scimToken,
  USER_SCHEMA,
} from '../support/scim';

/*
 * The request sequence Okta's SCIM 2.0 client sends (Okta's SCIM 2.0
 * reference): look-ups by `userName eq` with startIndex and count, full PUT
 * updates, `active` changed by a path-less PATCH, group push (create with
 * members, rename by a path-less replace carrying id and displayName, add and
 * remove members), group import (a list with members) and delete. Every step
 * is checked through SCIM and through the REST API.
 */
describe('SCIM as Okta drives it', () => {
  let t: TestApp;
  let root: TestUser;
  let token: string;
  let owner: TestUser;
  let eng: TestSpace;
  let ops: TestSpace;
  const scim = () => ({ Authorization: `Bearer ${token}` });
  const tag = randomUUID().slice(0, 8);
  const login = (name: string) => `${name}.${tag}@Okta.Example`;
  let linus: string;
  let grace: string;
  let engineering: string;
  let shortcut: string;

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    token = await scimToken(t.http, root, 'Okta provisioning');
    owner = await createUser(t.http);
    eng = await createSpace(t.http, owner);
    ops = await createSpace(t.http, owner);
  });
  afterAll(() => t.close());

  const view = (userId: string) => restView(t.http, root, userId, [eng, ops]);
  const oktaUser = (userName: string, extra: Record<string, unknown> = {}) => ({
    schemas: [USER_SCHEMA],
    userName,
    name: { givenName: 'Linus', familyName: 'Torvalds' },
    emails: [{ primary: true, value: userName.toLowerCase(), type: 'work' }],
    displayName: 'Linus Torvalds',
    locale: 'en-US',
    externalId: `00u${tag}`,
    groups: [],
    password: 'never-stored-1A!',
    active: true,
    ...extra,
  });

  it('1. looks users up by userName with startIndex and count, then creates them', async () => {
    const none = expectStatus(
      await t.http
        .get(`${SCIM}/Users`)
        .query({ filter: `userName eq "${login('linus')}"`, startIndex: 1, count: 100 })
        .set(scim()),
      200,
    );
    expect(none.body).toEqual({
      schemas: [LIST_SCHEMA],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
    const created = expectStatus(
      await t.http
        .post(`${SCIM}/Users`)
        .set(scim())
        .send(oktaUser(login('linus'))),
      201,
    );
    linus = created.body.id;
    // The login keeps its case; the account email is the work email.
    expect(created.body).toEqual(expect.objectContaining({ userName: login('linus'), active: true }));
    expect(created.body).not.toHaveProperty('password');
    expect(await view(linus)).toEqual({
      email: login('linus').toLowerCase(),
      is_active: true,
      roles: { [eng.slug]: null, [ops.slug]: null },
    });
    const second = expectStatus(
      await t.http
        .post(`${SCIM}/Users`)
        .set(scim())
        .send(
          oktaUser(login('grace'), {
            externalId: `00v${tag}`,
            name: { givenName: 'Grace', familyName: 'Hopper' },
          }),
        ),
      201,
    );
    grace = second.body.id;
    const found = expectStatus(
      await t.http
        .get(`${SCIM}/Users`)
        .query({ filter: `userName eq "${login('linus').toLowerCase()}"`, startIndex: 1, count: 100 })
        .set(scim()),
      200,
    );
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0].id).toBe(linus);
    // A second page of a one-result filter is empty but keeps the total.
    const past = expectStatus(
      await t.http
        .get(`${SCIM}/Users`)
        .query({ filter: `userName sw "linus.${tag}"`, startIndex: 2, count: 100 })
        .set(scim()),
      200,
    );
    expect(past.body).toEqual(expect.objectContaining({ totalResults: 1, startIndex: 2, itemsPerPage: 0 }));
    // Okta re-creating a user it already pushed answers 409 uniqueness.
    const again = await t.http
      .post(`${SCIM}/Users`)
      .set(scim())
      .send(oktaUser(login('LINUS')));
    expectStatus(again, 409);
    expect(again.body.scimType).toBe('uniqueness');
  });

  it('2. updates a user with a full PUT: login, email and name as sent', async () => {
    const current = expectStatus(await t.http.get(`${SCIM}/Users/${linus}`).set(scim()), 200).body;
    const put = expectStatus(
      await t.http
        .put(`${SCIM}/Users/${linus}`)
        .set(scim())
        .send({
          ...current,
          userName: login('Linus.T'),
          name: { givenName: 'Linus B.', familyName: 'Torvalds' },
          emails: [{ primary: true, value: `linus.${tag}@kernel.example`, type: 'work' }],
        }),
      200,
    );
    expect(put.body).toEqual(
      expect.objectContaining({
        userName: login('Linus.T'),
        name: expect.objectContaining({ givenName: 'Linus B.' }),
        emails: [{ value: `linus.${tag}@kernel.example`, type: 'work', primary: true }],
      }),
    );
    expect(await view(linus)).toEqual(expect.objectContaining({ email: `linus.${tag}@kernel.example` }));
  });

  it('3. pushes a group with members: an unmapped name grants nothing until a superadmin maps it', async () => {
    const none = expectStatus(
      await t.http
        .get(`${SCIM}/Groups`)
        .query({ filter: `displayName eq "Engineering ${tag}"`, startIndex: 1, count: 100 })
        .set(scim()),
      200,
    );
    expect(none.body.totalResults).toBe(0);
    const pushed = expectStatus(
      await t.http
        .post(`${SCIM}/Groups`)
        .set(scim())
        .send({
          schemas: [GROUP_SCHEMA],
          displayName: `Engineering ${tag}`,
          members: [{ value: linus, display: login('Linus.T') }],
        }),
      201,
    );
    engineering = pushed.body.id;
    expect(memberIds(pushed.body)).toEqual([linus]);
    expect((await view(linus)).roles).toEqual({ [eng.slug]: null, [ops.slug]: null });
    await mapGroup(t.http, root, engineering, eng, 'editor');
    expect((await view(linus)).roles).toEqual({ [eng.slug]: 'editor', [ops.slug]: null });
  });

  it('4. the <slug>:<role> shortcut maps at creation; one user in two role groups of a space holds the higher role', async () => {
    const editors = expectStatus(
      await t.http
        .post(`${SCIM}/Groups`)
        .set(scim())
        .send({ schemas: [GROUP_SCHEMA], displayName: `${ops.slug}:editor`, members: [{ value: grace }] }),
      201,
    );
    shortcut = editors.body.id;
    const viewers = expectStatus(
      await t.http
        .post(`${SCIM}/Groups`)
        .set(scim())
        .send({ schemas: [GROUP_SCHEMA], displayName: `${ops.slug}:viewer`, members: [{ value: grace }] }),
      201,
    );
    expect((await view(grace)).roles).toEqual({ [eng.slug]: null, [ops.slug]: 'editor' });
    // Each group still lists her.
    expect(
      memberIds(expectStatus(await t.http.get(`${SCIM}/Groups/${shortcut}`).set(scim()), 200).body),
    ).toEqual([grace]);
    expect(
      memberIds(expectStatus(await t.http.get(`${SCIM}/Groups/${viewers.body.id}`).set(scim()), 200).body),
    ).toEqual([grace]);
    // Leaving the editor group leaves her a viewer: the IdP still has her in the viewer group.
    expectStatus(
      await t.http
        .patch(`${SCIM}/Groups/${shortcut}`)
        .set(scim())
        .send(patchOp({ op: 'remove', path: `members[value eq "${grace}"]` })),
      200,
    );
    expect((await view(grace)).roles).toEqual({ [eng.slug]: null, [ops.slug]: 'viewer' });
  });

  it('5. adds and removes group members with PATCH, and replaces them with PUT', async () => {
    expectStatus(
      await t.http
        .patch(`${SCIM}/Groups/${engineering}`)
        .set(scim())
        .send(patchOp({ op: 'add', path: 'members', value: [{ value: grace, display: login('grace') }] })),
      200,
    );
    expect((await view(grace)).roles).toEqual({ [eng.slug]: 'editor', [ops.slug]: 'viewer' });
    expectStatus(
      await t.http
        .patch(`${SCIM}/Groups/${engineering}`)
        .set(scim())
        .send(patchOp({ op: 'remove', path: `members[value eq "${linus}"]` })),
      200,
    );
    expect((await view(linus)).roles).toEqual({ [eng.slug]: null, [ops.slug]: null });
    const put = expectStatus(
      await t.http
        .put(`${SCIM}/Groups/${engineering}`)
        .set(scim())
        .send({
          schemas: [GROUP_SCHEMA],
          id: engineering,
          displayName: `Engineering ${tag}`,
          members: [{ value: linus }],
        }),
      200,
    );
    expect(memberIds(put.body)).toEqual([linus]);
    expect((await view(linus)).roles).toEqual({ [eng.slug]: 'editor', [ops.slug]: null });
    expect((await view(grace)).roles).toEqual({ [eng.slug]: null, [ops.slug]: 'viewer' });
  });

  it('6. renames the group by a path-less replace carrying id and displayName', async () => {
    const renamed = expectStatus(
      await t.http
        .patch(`${SCIM}/Groups/${engineering}`)
        .set(scim())
        .send(
          patchOp({ op: 'replace', value: { id: engineering, displayName: `Platform Engineering ${tag}` } }),
        ),
      200,
    );
    expect(renamed.body.displayName).toBe(`Platform Engineering ${tag}`);
    expect(memberIds(renamed.body)).toEqual([linus]);
    const byNewName = expectStatus(
      await t.http
        .get(`${SCIM}/Groups`)
        .query({ filter: `displayName eq "platform engineering ${tag}"` })
        .set(scim()),
      200,
    );
    expect(byNewName.body.Resources.map((g: { id: string }) => g.id)).toEqual([engineering]);
    expect((await view(linus)).roles).toEqual({ [eng.slug]: 'editor', [ops.slug]: null });
  });

  it('7. imports groups with their members (paged), and verifies one by displayName with members', async () => {
    const ids: string[] = [];
    const members = new Map<string, string[]>();
    for (let startIndex = 1; ; startIndex += 2) {
      const page = expectStatus(
        await t.http.get(`${SCIM}/Groups`).query({ startIndex, count: 2 }).set(scim()),
        200,
      );
      for (const group of page.body.Resources) {
        ids.push(group.id);
        members.set(group.id, memberIds(group));
      }
      if (startIndex + 2 > page.body.totalResults) break;
    }
    expect(ids).toEqual(expect.arrayContaining([engineering, shortcut]));
    expect(members.get(engineering)).toEqual([linus]);
    const verify = expectStatus(
      await t.http
        .get(`${SCIM}/Groups`)
        .query({ filter: `displayName eq "Platform Engineering ${tag}"` })
        .set(scim()),
      200,
    );
    expect(verify.body.Resources[0].members).toEqual([
      { value: linus, display: login('Linus.T'), $ref: `http://app.verity.test${SCIM}/Users/${linus}` },
    ]);
  });

  it('8. deactivates and reactivates with a path-less PATCH: sign-in follows, roles stay', async () => {
    const off = expectStatus(
      await t.http
        .patch(`${SCIM}/Users/${linus}`)
        .set(scim())
        .send(patchOp({ op: 'replace', value: { active: false } })),
      200,
    );
    expect(off.body.active).toBe(false);
    expect(await view(linus)).toEqual(expect.objectContaining({ is_active: false }));
    const on = expectStatus(
      await t.http
        .patch(`${SCIM}/Users/${linus}`)
        .set(scim())
        .send(patchOp({ op: 'replace', value: { active: true } })),
      200,
    );
    expect(on.body.active).toBe(true);
    expect(await view(linus)).toEqual(
      expect.objectContaining({ is_active: true, roles: { [eng.slug]: 'editor', [ops.slug]: null } }),
    );
  });

  it('9. deletes a pushed group: its members lose what it granted', async () => {
    expectStatus(await t.http.delete(`${SCIM}/Groups/${engineering}`).set(scim()), 204);
    expectStatus(await t.http.get(`${SCIM}/Groups/${engineering}`).set(scim()), 404);
    expect((await view(linus)).roles).toEqual({ [eng.slug]: null, [ops.slug]: null });
    const mappings = expectStatus(
      await t.http
        .get('/api/v1.0/admin/scim-group-mappings')
        .query({ group_id: engineering })
        .set({ Authorization: `Bearer ${root.token}` }),
      200,
    );
    expect(mappings.body).toEqual({ items: [], total: 0 });
  });
});
