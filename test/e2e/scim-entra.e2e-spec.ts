import { randomUUID } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { createSpace, createUser, rootUser, TestSpace, TestUser } from '../support/factories';
import {
  ENTERPRISE_SCHEMA,
  expectStatus,
  GROUP_SCHEMA,
  mapGroup,
  memberIds,
  patchOp,
  restView,
  SCIM,
  SCIM_JSON,
  scimToken,
  USER_SCHEMA,
} from '../support/scim';

/*
 * The request sequence Microsoft Entra ID's provisioning service sends
 * (Microsoft's "Develop a SCIM endpoint" request examples): capitalised ops,
 * "True"/"False" strings, enterprise extension paths, userPrincipalName as
 * userName and mail as the work email, `excludedAttributes=members` on every
 * group read, members removed by value list and by filter path. Every step
 * is checked through SCIM and through the REST API.
 */
describe('SCIM as Microsoft Entra ID drives it', () => {
  let t: TestApp;
  let root: TestUser;
  let token: string;
  let owner: TestUser;
  let finance: TestSpace;
  let research: TestSpace;
  const scim = () => ({ Authorization: `Bearer ${token}` });
  const tag = randomUUID().slice(0, 8);
  // Entra's userPrincipalName and mail differ for this user: the case issue 26 is about.
  const upn = `Ada.Lovelace-${tag}@Contoso.onmicrosoft.com`;
  const mail = `ada-${tag}@contoso.example`;
  const externalId = randomUUID();
  let ada: string;
  let bob: string;
  let everyone: string;
  let dataTeam: string;

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    token = await scimToken(t.http, root, 'Entra provisioning');
    owner = await createUser(t.http);
    finance = await createSpace(t.http, owner);
    research = await createSpace(t.http, owner);
  });
  afterAll(() => t.close());

  const view = (userId: string) => restView(t.http, root, userId, [finance, research]);
  const getUser = async (id: string) =>
    expectStatus(await t.http.get(`${SCIM}/Users/${id}`).set(scim()), 200).body;

  it('1. looks the user up by userName, finds none, and creates them with the enterprise extension', async () => {
    const none = expectStatus(
      await t.http
        .get(`${SCIM}/Users`)
        .query({ filter: `userName eq "${upn}"` })
        .set(scim()),
      200,
    );
    expect(none.body).toEqual(expect.objectContaining({ totalResults: 0, Resources: [] }));

    const created = expectStatus(
      await t.http
        .post(`${SCIM}/Users`)
        .set(scim())
        .type(SCIM_JSON)
        .send({
          schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
          externalId,
          userName: upn,
          active: true,
          emails: [{ primary: true, type: 'work', value: mail }],
          meta: { resourceType: 'User' },
          name: { formatted: 'Ada Lovelace', familyName: 'Lovelace', givenName: 'Ada' },
          roles: [],
          [ENTERPRISE_SCHEMA]: { department: 'Finance', employeeNumber: '1815' },
        }),
      201,
    );
    ada = created.body.id;
    expect(created.body).toEqual(
      expect.objectContaining({
        userName: upn,
        externalId,
        emails: [{ value: mail, type: 'work', primary: true }],
        active: true,
        [ENTERPRISE_SCHEMA]: { department: 'Finance', employeeNumber: '1815' },
      }),
    );
    expect(created.body.schemas).toEqual([USER_SCHEMA, ENTERPRISE_SCHEMA]);
    expect(await view(ada)).toEqual({
      email: mail,
      is_active: true,
      roles: { [finance.slug]: null, [research.slug]: null },
    });

    const other = expectStatus(
      await t.http
        .post(`${SCIM}/Users`)
        .set(scim())
        .send({
          schemas: [USER_SCHEMA],
          externalId: randomUUID(),
          userName: `bob-${tag}@Contoso.onmicrosoft.com`,
          active: 'True',
          emails: [{ primary: true, type: 'work', value: `bob-${tag}@contoso.example` }],
          name: { familyName: 'Babbage', givenName: 'Bob' },
        }),
      201,
    );
    bob = other.body.id;
  });

  it('2. finds the user by userName (any case), by externalId and by the work email', async () => {
    for (const filter of [
      `userName eq "${upn.toLowerCase()}"`,
      `externalId eq "${externalId}"`,
      `emails[type eq "work"].value eq "${mail.toUpperCase()}"`,
    ]) {
      const found = expectStatus(await t.http.get(`${SCIM}/Users`).query({ filter }).set(scim()), 200);
      expect(found.body.totalResults).toBe(1);
      expect(found.body.Resources[0].id).toBe(ada);
    }
    // The email is not the login: a userName filter with the mail finds nobody.
    const byMailAsLogin = await t.http
      .get(`${SCIM}/Users`)
      .query({ filter: `userName eq "${mail}"` })
      .set(scim());
    expect(byMailAsLogin.body.totalResults).toBe(0);
  });

  it('3. Replace of the work email changes the email only; Replace of userName changes the login only', async () => {
    const newMail = `ada.lovelace-${tag}@contoso.example`;
    const mailChanged = expectStatus(
      await t.http
        .patch(`${SCIM}/Users/${ada}`)
        .set(scim())
        .send(
          patchOp(
            { op: 'Replace', path: 'emails[type eq "work"].value', value: newMail },
            { op: 'Replace', path: 'name.familyName', value: 'King' },
          ),
        ),
      200,
    );
    expect(mailChanged.body).toEqual(
      expect.objectContaining({ userName: upn, emails: [{ value: newMail, type: 'work', primary: true }] }),
    );
    expect((await view(ada)).email).toBe(newMail);

    const newUpn = `Ada.King-${tag}@Contoso.onmicrosoft.com`;
    const loginChanged = expectStatus(
      await t.http
        .patch(`${SCIM}/Users/${ada}`)
        .set(scim())
        .send(patchOp({ op: 'Replace', path: 'userName', value: newUpn })),
      200,
    );
    expect(loginChanged.body.userName).toBe(newUpn);
    expect(loginChanged.body.emails[0].value).toBe(newMail);
    expect((await view(ada)).email).toBe(newMail);

    // The next sync cycle sends both again: nothing flips.
    const again = expectStatus(
      await t.http
        .patch(`${SCIM}/Users/${ada}`)
        .set(scim())
        .send(
          patchOp(
            { op: 'Replace', path: 'userName', value: newUpn },
            { op: 'Replace', path: 'emails[type eq "work"].value', value: newMail },
          ),
        ),
      200,
    );
    expect(again.body.meta.version).toBe(loginChanged.body.meta.version);
    expect((await getUser(ada)).userName).toBe(newUpn);
    // The login is unique ignoring case.
    const taken = await t.http
      .patch(`${SCIM}/Users/${bob}`)
      .set(scim())
      .send(patchOp({ op: 'Replace', path: 'userName', value: newUpn.toUpperCase() }));
    expectStatus(taken, 409);
    expect(taken.body.scimType).toBe('uniqueness');
  });

  it('4. keeps enterprise extension attributes sent by URN path, the manager as an id', async () => {
    const res = expectStatus(
      await t.http
        .patch(`${SCIM}/Users/${ada}`)
        .set(scim())
        .send(
          patchOp(
            { op: 'Add', path: `${ENTERPRISE_SCHEMA}:department`, value: 'Research' },
            { op: 'Add', path: `${ENTERPRISE_SCHEMA}:manager`, value: bob },
            { op: 'Replace', path: 'title', value: 'Analyst' },
          ),
        ),
      200,
    );
    expect(res.body[ENTERPRISE_SCHEMA]).toEqual({
      department: 'Research',
      employeeNumber: '1815',
      manager: { value: bob },
    });
    expect((await getUser(ada))[ENTERPRISE_SCHEMA].department).toBe('Research');
  });

  it('5. creates groups with excludedAttributes=members look-ups, and a superadmin maps them', async () => {
    for (const [name, set] of [
      [`All staff ${tag}`, (id: string) => (everyone = id)],
      [`Data team ${tag}`, (id: string) => (dataTeam = id)],
    ] as const) {
      const none = expectStatus(
        await t.http
          .get(`${SCIM}/Groups`)
          .query({ filter: `displayName eq "${name}"`, excludedAttributes: 'members' })
          .set(scim()),
        200,
      );
      expect(none.body.totalResults).toBe(0);
      const created = expectStatus(
        await t.http
          .post(`${SCIM}/Groups`)
          .set(scim())
          .send({
            schemas: [GROUP_SCHEMA],
            externalId: randomUUID(),
            displayName: name,
            meta: { resourceType: 'Group' },
            members: [],
          }),
        201,
      );
      set(created.body.id);
      const got = expectStatus(
        await t.http
          .get(`${SCIM}/Groups/${created.body.id}`)
          .query({ excludedAttributes: 'members' })
          .set(scim()),
        200,
      );
      expect(got.body.displayName).toBe(name);
      expect(got.body).not.toHaveProperty('members');
    }
    await mapGroup(t.http, root, everyone, finance, 'viewer');
    await mapGroup(t.http, root, everyone, research, 'viewer');
    await mapGroup(t.http, root, dataTeam, finance, 'editor');
    // Mapped groups without members grant nothing yet.
    expect((await view(ada)).roles).toEqual({ [finance.slug]: null, [research.slug]: null });
  });

  it('6. adds members one request per group: the highest mapped role wins in each space', async () => {
    expectStatus(
      await t.http
        .patch(`${SCIM}/Groups/${everyone}`)
        .set(scim())
        .send(
          patchOp({
            op: 'Add',
            path: 'members',
            value: [
              { $ref: null, value: ada },
              { $ref: null, value: bob },
            ],
          }),
        ),
      200,
    );
    expect((await view(ada)).roles).toEqual({ [finance.slug]: 'viewer', [research.slug]: 'viewer' });
    expectStatus(
      await t.http
        .patch(`${SCIM}/Groups/${dataTeam}`)
        .set(scim())
        .send(patchOp({ op: 'Add', path: 'members', value: [{ $ref: null, value: ada }] })),
      200,
    );
    expect((await view(ada)).roles).toEqual({ [finance.slug]: 'editor', [research.slug]: 'viewer' });
    expect((await view(bob)).roles).toEqual({ [finance.slug]: 'viewer', [research.slug]: 'viewer' });
    // Both groups list her; the space admin sees where each role comes from.
    const groups = expectStatus(
      await t.http
        .get(`${SCIM}/Groups`)
        .query({ filter: `displayName co "${tag}"` })
        .set(scim()),
      200,
    );
    expect(groups.body.Resources.map(memberIds)).toEqual([[ada, bob].sort(), [ada]]);
    const members = await t.http
      .get(`/api/v1.0/spaces/${finance.slug}/members`)
      .set({ Authorization: `Bearer ${owner.token}` });
    expect(members.body.items.find((m: { user_id: string }) => m.user_id === ada)).toEqual(
      expect.objectContaining({
        role: 'editor',
        direct_role: null,
        granted_by: expect.arrayContaining([
          { source: 'scim_group', role: 'viewer', group_id: everyone, group_name: `All staff ${tag}` },
          { source: 'scim_group', role: 'editor', group_id: dataTeam, group_name: `Data team ${tag}` },
        ]),
      }),
    );
  });

  it('7. removes a member by filter path: the role falls back to the other group, not out of the space', async () => {
    expectStatus(
      await t.http
        .patch(`${SCIM}/Groups/${dataTeam}`)
        .set(scim())
        .send(patchOp({ op: 'Remove', path: `members[value eq "${ada}"]` })),
      200,
    );
    expect((await view(ada)).roles).toEqual({ [finance.slug]: 'viewer', [research.slug]: 'viewer' });
    const events = await dbQuery<{ type: string; payload: Record<string, string> }>(
      `SELECT type, payload FROM outbox_events WHERE space_id = $1 AND payload->>'user_id' = $2 ORDER BY occurred_at, id`,
      [finance.id, ada],
    );
    expect(events.map((e) => [e.type, e.payload.role, e.payload.previous_role ?? null])).toEqual([
      ['space.member_added', 'viewer', null],
      ['space.member_role_changed', 'editor', 'viewer'],
      ['space.member_role_changed', 'viewer', 'editor'],
    ]);
  });

  it('8. removes a member by value list (path "members"): they leave the spaces they held only through it', async () => {
    expectStatus(
      await t.http
        .patch(`${SCIM}/Groups/${everyone}`)
        .set(scim())
        .send(patchOp({ op: 'Remove', path: 'members', value: [{ $ref: null, value: bob }] })),
      200,
    );
    expect((await view(bob)).roles).toEqual({ [finance.slug]: null, [research.slug]: null });
    const group = expectStatus(await t.http.get(`${SCIM}/Groups/${everyone}`).set(scim()), 200);
    expect(memberIds(group.body)).toEqual([ada]);
  });

  it('9. renames a group with Replace displayName: the mappings follow the group', async () => {
    const renamed = expectStatus(
      await t.http
        .patch(`${SCIM}/Groups/${everyone}`)
        .set(scim())
        .send(patchOp({ op: 'Replace', path: 'displayName', value: `Everyone ${tag}` })),
      200,
    );
    expect(renamed.body.displayName).toBe(`Everyone ${tag}`);
    expect((await view(ada)).roles).toEqual({ [finance.slug]: 'viewer', [research.slug]: 'viewer' });
  });

  it('10. disables with "False" and enables with "True": the account follows, roles stay', async () => {
    const off = expectStatus(
      await t.http
        .patch(`${SCIM}/Users/${ada}`)
        .set(scim())
        .send(patchOp({ op: 'Replace', path: 'active', value: 'False' })),
      200,
    );
    expect(off.body.active).toBe(false);
    expect(await view(ada)).toEqual(expect.objectContaining({ is_active: false }));
    const on = expectStatus(
      await t.http
        .patch(`${SCIM}/Users/${ada}`)
        .set(scim())
        .send(patchOp({ op: 'Replace', path: 'active', value: 'True' })),
      200,
    );
    expect(on.body.active).toBe(true);
    expect(await view(ada)).toEqual(
      expect.objectContaining({
        is_active: true,
        roles: { [finance.slug]: 'viewer', [research.slug]: 'viewer' },
      }),
    );
  });

  it('11. deletes a group: what it granted is revoked (audited, with events), a direct grant stays', async () => {
    // Research's owner gives Ada a direct editor role; the group's viewer role is below it.
    expectStatus(
      await t.http
        .patch(`/api/v1.0/spaces/${research.slug}/members/${ada}`)
        .set({ Authorization: `Bearer ${owner.token}` })
        .send({ role: 'editor' }),
      200,
    );
    expect(expectStatus(await t.http.delete(`${SCIM}/Groups/${everyone}`).set(scim()), 204).status).toBe(204);
    expectStatus(await t.http.get(`${SCIM}/Groups/${everyone}`).set(scim()), 404);
    expect((await view(ada)).roles).toEqual({ [finance.slug]: null, [research.slug]: 'editor' });
    const audit = await dbQuery<{ action: string; details: Record<string, unknown> }>(
      `SELECT action, details FROM audit_log WHERE space_id = $1 AND resource_id = $2 AND action = 'space.member_removed'`,
      [finance.id, ada],
    );
    expect(audit).toEqual([
      {
        action: 'space.member_removed',
        details: { role: 'viewer', scim_group_id: everyone, reason: 'scim.group_deleted' },
      },
    ]);
    const deleted = await dbQuery(
      `SELECT 1 FROM audit_log WHERE resource_id = $1 AND action = 'scim.group_deleted'`,
      [everyone],
    );
    expect(deleted).toHaveLength(1);
  });

  it('12. deprovisions the user: deactivated in Verity, gone from SCIM', async () => {
    expectStatus(await t.http.delete(`${SCIM}/Users/${ada}`).set(scim()), 204);
    expectStatus(await t.http.get(`${SCIM}/Users/${ada}`).set(scim()), 404);
    expect(await view(ada)).toEqual(expect.objectContaining({ is_active: false }));
    const found = await t.http
      .get(`${SCIM}/Users`)
      .query({ filter: `userName eq "Ada.King-${tag}@Contoso.onmicrosoft.com"` })
      .set(scim());
    expect(found.body.totalResults).toBe(0);
  });
});
