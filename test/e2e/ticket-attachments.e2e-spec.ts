import { DataSource } from 'typeorm';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { ObjectStorage } from '../../src/platform/storage/object-storage';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import {
  addMember,
  bearer,
  createSpace,
  createUser,
  rootUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import { SAMPLES } from '../support/sample-files';
import { BOUNDARY, multipartBody, streamUpload } from '../support/uploads';

const API = '/api/v1.0';
const MB = 1024 * 1024;

describe('ticket attachments', () => {
  let t: TestApp;
  let storage: ObjectStorage;
  let owner: TestUser; // reporter of the ticket
  let helper: TestUser; // another member
  let viewer: TestUser;
  let admin: TestUser; // Space Admin, not the owner
  let outsider: TestUser;
  let space: TestSpace;
  let ticket: { id: string };

  const attach = (ticketId = ticket.id) => `${API}/issues/tickets/${ticketId}/attachments`;
  const file = (id: string) => `${API}/issues/attachments/${id}`;

  async function createTicket(user: TestUser, title = 'Broken numbers') {
    const res = await t.http
      .post(`${API}/issues/tickets`)
      .set(bearer(user))
      .send({ space_id: space.id, title, priority: 'high' });
    if (res.status !== 201) throw new Error(`ticket: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string };
  }

  async function comment(user: TestUser, ticketId = ticket.id) {
    const res = await t.http
      .post(`${API}/issues/tickets/${ticketId}/comments`)
      .set(bearer(user))
      .send({ body: 'See the attached file.' });
    if (res.status !== 201) throw new Error(`comment: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string };
  }

  async function upload(
    user: TestUser,
    data: Buffer,
    name: string,
    fields: Record<string, string> = {},
    ticketId?: string,
  ) {
    let req = t.http.post(attach(ticketId)).set(bearer(user));
    for (const [key, value] of Object.entries(fields)) req = req.field(key, value);
    return req.attach('file', data, name);
  }

  beforeAll(async () => {
    t = await startApp();
    storage = t.app.get(ObjectStorage);
    admin = await createUser(t.http, { first_name: 'Ada', last_name: 'Admin' });
    owner = await createUser(t.http, { first_name: 'Olga', last_name: 'Owner' });
    helper = await createUser(t.http, { first_name: 'Hal', last_name: 'Helper' });
    viewer = await createUser(t.http, { first_name: 'Vic', last_name: 'Viewer' });
    outsider = await createUser(t.http, { first_name: 'Oz' });
    space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, owner, 'editor');
    await addMember(t.http, admin, space, helper, 'editor');
    await addMember(t.http, admin, space, viewer, 'viewer');
    ticket = await createTicket(owner);
  });
  afterAll(() => t.close());

  it('attaches a file to a ticket and streams it back with content headers', async () => {
    const data = SAMPLES.pdf();
    const res = await upload(helper, data, 'trace.pdf');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      file_name: 'trace.pdf',
      file_size: data.length,
      mime_type: 'application/pdf',
      uploaded_by: { id: helper.id, full_name: 'Hal Helper' },
      comment_id: null,
      created_at: expect.stringMatching(/Z$/),
    });
    const got = await t.http
      .get(file(res.body.id))
      .set(bearer(viewer))
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('application/pdf');
    expect(got.headers['content-length']).toBe(String(data.length));
    expect(got.headers['content-disposition']).toBe(
      `attachment; filename="trace.pdf"; filename*=UTF-8''trace.pdf`,
    );
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(got.headers['content-security-policy']).toMatch(/^sandbox/);
    expect(Buffer.compare(got.body as Buffer, data)).toBe(0);
  });

  it('serves an SVG sandboxed, as a download', async () => {
    const res = await upload(viewer, SAMPLES.svg(), 'diagram.svg');
    expect(res.status).toBe(201);
    const got = await t.http.get(file(res.body.id)).set(bearer(helper));
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(got.headers['content-security-policy']).toMatch(/^sandbox/);
    expect(got.headers['content-disposition']).toMatch(/^attachment;/);
    expect(got.headers['x-content-type-options']).toBe('nosniff');
  });

  describe('comment_id', () => {
    it('ties the file to a comment of the ticket', async () => {
      const c = await comment(helper);
      const res = await upload(helper, SAMPLES.csv(), 'rows.csv', { comment_id: c.id });
      expect(res.status).toBe(201);
      expect(res.body.comment_id).toBe(c.id);
      expect(res.body.mime_type).toBe('text/csv');
    });

    it('accepts the comment_id after the file part too', async () => {
      const c = await comment(helper);
      const res = await t.http
        .post(attach())
        .set(bearer(helper))
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(
          multipartBody([
            { name: 'file', filename: 'late.json', contentType: 'application/json', body: SAMPLES.json() },
            { name: 'comment_id', body: c.id },
          ]),
        );
      expect(res.status).toBe(201);
      expect(res.body.comment_id).toBe(c.id);
    });

    it('refuses a comment of another ticket, a missing one and a malformed one (422), keeping nothing', async () => {
      const other = await createTicket(owner, 'Another');
      const foreign = await comment(helper, other.id);
      const before = await dbQuery<{ n: string }>('SELECT count(*) AS n FROM attachments');
      for (const commentId of [foreign.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res = await upload(helper, SAMPLES.png(), 'x.png', { comment_id: commentId });
        expectProblem(res, 422);
        expect(invalidFields(res)).toEqual(['comment_id']);
      }
      expect(await dbQuery('SELECT count(*) AS n FROM attachments')).toEqual(before);
      const pending = await dbQuery<{ key: string }>(
        `SELECT payload->>'storage_key' AS key FROM jobs WHERE name = 'attachments.reap-upload' AND status = 'pending'`,
      );
      const left = await Promise.all(pending.map((p) => storage.exists(p.key)));
      const recorded = await dbQuery<{ storage_key: string }>('SELECT storage_key FROM attachments');
      const stray = pending.filter((p, i) => left[i] && !recorded.some((r) => r.storage_key === p.key));
      expect(stray).toEqual([]);
    });

    it('refuses other form fields (422)', async () => {
      const res = await upload(helper, SAMPLES.png(), 'x.png', { note: 'hi' });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['note']);
    });
  });

  describe('refusals', () => {
    it('refuses an executable and a mismatched file with 400', async () => {
      expectProblem(await upload(helper, SAMPLES.exe(), 'tool.exe'), 400, /EXE/);
      expectProblem(await upload(helper, SAMPLES.html(), 'report.pdf'), 400);
      expectProblem(
        await upload(helper, SAMPLES.jpeg(), 'photo.png'),
        400,
        /named \.png but its content is JPEG/,
      );
    });

    it('answers 413 for more than 50 MB', async () => {
      const res = await streamUpload({
        url: `${t.baseUrl}${attach()}`,
        token: helper.token,
        size: 51 * MB,
        fileName: 'dump.zip',
        contentType: 'application/zip',
        prefix: SAMPLES.zip(),
      });
      expect(res.status).toBe(413);
      expect(res.body.status).toBe(413);
    });
  });

  describe('permissions', () => {
    it('hides the ticket and its files from non-members (404)', async () => {
      const a = await upload(helper, SAMPLES.png(), 'p.png');
      expectProblem(await upload(outsider, SAMPLES.png(), 'x.png'), 404, /ticket/);
      expectProblem(await t.http.get(file(a.body.id)).set(bearer(outsider)), 404, /attachment/);
      expectProblem(await t.http.delete(file(a.body.id)).set(bearer(outsider)), 404, /attachment/);
      expectProblem(
        await upload(helper, SAMPLES.png(), 'x.png', {}, '00000000-0000-4000-8000-000000000000'),
        404,
      );
      expectProblem(await t.http.get(file('00000000-0000-4000-8000-000000000000')).set(bearer(helper)), 404);
      expectProblem(await t.http.get(file('nope')).set(bearer(helper)), 422);
    });

    it("lets only the uploader or the ticket's owner delete (403 for others, a Space Admin included)", async () => {
      const a = await upload(helper, SAMPLES.png(), 'a.png');
      expectProblem(
        await t.http.delete(file(a.body.id)).set(bearer(viewer)),
        403,
        /uploader or the ticket's owner/,
      );
      expectProblem(await t.http.delete(file(a.body.id)).set(bearer(admin)), 403);
      const byOwner = await t.http.delete(file(a.body.id)).set(bearer(owner));
      expect(byOwner.status).toBe(204);
      expect(byOwner.text).toBe('');
      expect(byOwner.headers['content-type']).toBeUndefined();
      expect(await storage.exists(`attachments/${a.body.id}`)).toBe(false);
      expectProblem(await t.http.get(file(a.body.id)).set(bearer(owner)), 404);

      const b = await upload(viewer, SAMPLES.gif(), 'b.gif');
      expect((await t.http.delete(file(b.body.id)).set(bearer(viewer))).status).toBe(204);

      const c = await upload(helper, SAMPLES.gif(), 'c.gif');
      const root = await rootUser(t.http);
      expect((await t.http.delete(file(c.body.id)).set(bearer(root))).status).toBe(204);
    });

    it('keeps ticket and product attachments apart', async () => {
      const a = await upload(helper, SAMPLES.png(), 'sep.png');
      expectProblem(
        await t.http.get(`${API}/catalog/attachments/${a.body.id}/download`).set(bearer(helper)),
        404,
      );
      expectProblem(await t.http.delete(`${API}/catalog/attachments/${a.body.id}`).set(bearer(helper)), 404);
    });
  });

  it('emits events, and removes files with their ticket', async () => {
    const doomed = await createTicket(owner, 'Doomed');
    const a = await upload(helper, SAMPLES.png(), 'a.png', {}, doomed.id);
    const c = await comment(helper, doomed.id);
    const b = await upload(helper, SAMPLES.pdf(), 'b.pdf', { comment_id: c.id }, doomed.id);
    expect((await t.http.delete(`${API}/issues/tickets/${doomed.id}`).set(bearer(owner))).status).toBe(204);
    await t.app.get(OutboxDispatcher).drain();
    await t.app
      .get(DataSource)
      .query(`UPDATE jobs SET run_at = now() WHERE name = 'attachments.purge-object' AND status = 'pending'`);
    await t.app.get(JobRunner).drain();
    for (const id of [a.body.id, b.body.id]) {
      expect(await dbQuery('SELECT id FROM attachments WHERE id = $1', [id])).toHaveLength(0);
      expect(await storage.exists(`attachments/${id}`)).toBe(false);
    }
    const events = await dbQuery<{ type: string; payload: Record<string, unknown> }>(
      `SELECT type, payload FROM outbox_events WHERE payload->>'ticket_id' = $1 AND type LIKE 'attachment.%' ORDER BY occurred_at`,
      [doomed.id],
    );
    expect(events.map((e) => e.type)).toEqual([
      'attachment.created',
      'attachment.created',
      'attachment.deleted',
      'attachment.deleted',
    ]);
    expect(events[1].payload).toEqual(
      expect.objectContaining({
        parent_type: 'ticket',
        ticket_id: doomed.id,
        product_id: null,
        comment_id: c.id,
      }),
    );
    expect(events[3].payload.reason).toBe('parent_deleted');
  });
});
