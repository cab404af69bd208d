import { randomUUID } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { addMember, bearer, createSpace, createUser, TestSpace, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

let t: TestApp;
let owner: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let space: TestSpace;
let other: TestSpace;

const tasksOf = (s: { slug: string }) => `/api/v1.0/spaces/${s.slug}/ai/authoring-tasks`;

beforeAll(async () => {
  t = await startApp();
  owner = await createUser(t.http, { first_name: 'Owner' });
  viewer = await createUser(t.http, { first_name: 'Viewer' });
  outsider = await createUser(t.http, { first_name: 'Outsider' });
  space = await createSpace(t.http, owner);
  other = await createSpace(t.http, owner);
  await addMember(t.http, owner, space, viewer, 'viewer');
});

afterAll(() => t.close());

describe('pipeline-authoring tasks', () => {
  it('creates a root task that is its own root, not delegated', async () => {
    const definitionId = randomUUID();
    const res = await t.http
      .post(tasksOf(space))
      .set(bearer(owner))
      .send({ title: 'Orders pipeline', definition_id: definitionId });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      space_id: space.id,
      title: 'Orders pipeline',
      definition_id: definitionId,
      parent_task_id: null,
      root_task_id: res.body.id,
      delegated: false,
      calls_used: 0,
      calls_remaining: 6,
      created_by: owner.id,
      created_at: expect.stringMatching(/Z$/),
    });
    const got = await t.http.get(`${tasksOf(space)}/${res.body.id}`).set(bearer(owner));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("creates delegated tasks that inherit the parent's root, through several levels", async () => {
    const root = (await t.http.post(tasksOf(space)).set(bearer(owner)).send({ title: 'Root' })).body;
    const child = await t.http
      .post(tasksOf(space))
      .set(bearer(owner))
      .send({ title: 'Worker', parent_task_id: root.id });
    expect(child.status).toBe(201);
    expect(child.body).toMatchObject({ parent_task_id: root.id, root_task_id: root.id, delegated: true });
    const grandchild = await t.http
      .post(tasksOf(space))
      .set(bearer(owner))
      .send({ title: 'Subagent', parent_task_id: child.body.id });
    expect(grandchild.body).toMatchObject({
      parent_task_id: child.body.id,
      root_task_id: root.id,
      delegated: true,
    });
  });

  it('refuses a parent from another space or that does not exist (404)', async () => {
    const elsewhere = (await t.http.post(tasksOf(other)).set(bearer(owner)).send({ title: 'Elsewhere' }))
      .body;
    const res = await t.http
      .post(tasksOf(space))
      .set(bearer(owner))
      .send({ title: 'Child', parent_task_id: elsewhere.id });
    expectProblem(res, 404);
    expectProblem(
      await t.http
        .post(tasksOf(space))
        .set(bearer(owner))
        .send({ title: 'Child', parent_task_id: randomUUID() }),
      404,
    );
    expectProblem(await t.http.get(`${tasksOf(space)}/${elsewhere.id}`).set(bearer(owner)), 404);
  });

  it('needs edit access: a viewer gets 403, a non-member 404', async () => {
    expectProblem(await t.http.post(tasksOf(space)).set(bearer(viewer)).send({ title: 'x' }), 403);
    expectProblem(await t.http.post(tasksOf(space)).set(bearer(outsider)).send({ title: 'x' }), 404);
    expect((await t.http.post(tasksOf(space)).send({ title: 'x' })).status).toBe(401);
  });

  it('validates the body (422)', async () => {
    const res = await t.http
      .post(tasksOf(space))
      .set(bearer(owner))
      .send({ title: '', definition_id: 'nope', parent_task_id: 5, extra: true });
    expectProblem(res, 422);
    expect(invalidFields(res).sort()).toEqual(['definition_id', 'extra', 'parent_task_id', 'title']);
    expectProblem(await t.http.get(`${tasksOf(space)}/not-a-uuid`).set(bearer(owner)), 422);
  });
});
