import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../src/config/app.config';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { OutboxService } from '../../src/platform/outbox/outbox.service';
import { ObjectStorage } from '../../src/platform/storage/object-storage';
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
import { SAMPLES, SampleKind } from '../support/sample-files';
import { BOUNDARY, multipartBody, streamUpload } from '../support/uploads';

const API = '/api/v1.0';
const MB = 1024 * 1024;

describe('product attachments', () => {
  let t: TestApp;
  let config: AppConfig;
  let storage: ObjectStorage;
  let admin: TestUser;
  let editor: TestUser;
  let editor2: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  let space: TestSpace;
  let product: { id: string };

  const files = (productId = product.id, s: TestSpace = space) =>
    `${API}/catalog/spaces/${s.slug}/products/${productId}/attachments`;
  const objectKey = (id: string) => `attachments/${id}`;

  /** Every object file the local storage holds (finished or partial). */
  function storedFiles(): string[] {
    const root = join(config.dataDir, 'objects');
    const walk = (dir: string): string[] => {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return [];
      }
      return names.flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? walk(path) : [path];
      });
    };
    return walk(root);
  }

  async function upload(
    user: TestUser,
    data: Buffer,
    fileName: string,
    contentType = 'application/octet-stream',
    productId = product.id,
  ) {
    return t.http
      .post(files(productId))
      .set(bearer(user))
      .attach('file', data, { filename: fileName, contentType });
  }

  async function uploaded(user: TestUser, kind: SampleKind, fileName: string) {
    const res = await upload(user, SAMPLES[kind](), fileName);
    if (res.status !== 201) throw new Error(`upload ${fileName}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; file_name: string; mime_type: string; file_size: number };
  }

  /** Follows a download link of this API (its origin is PUBLIC_BASE_URL) over the test connection. */
  function follow(url: string) {
    const parsed = new URL(url);
    expect(parsed.origin).toBe('http://app.verity.test');
    return t.http
      .get(parsed.pathname + parsed.search)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
  }

  async function settle() {
    await t.app.get(OutboxDispatcher).drain();
    await t.app.get(JobRunner).drain();
  }

  beforeAll(async () => {
    t = await startApp();
    config = t.app.get(APP_CONFIG);
    storage = t.app.get(ObjectStorage);
    admin = await createUser(t.http, { first_name: 'Ada', last_name: 'Admin' });
    editor = await createUser(t.http, { first_name: 'Eve', last_name: 'Editor' });
    editor2 = await createUser(t.http, { first_name: 'Ed', last_name: 'Other' });
    viewer = await createUser(t.http, { first_name: 'Vic', last_name: 'Viewer' });
    outsider = await createUser(t.http, { first_name: 'Oz' });
    space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, editor, 'editor');
    await addMember(t.http, admin, space, editor2, 'editor');
    await addMember(t.http, admin, space, viewer, 'viewer');
    product = await createProduct(t.http, admin, space);
  });
  afterAll(() => t.close());

  describe('accepted kinds', () => {
    it.each([
      ['pdf', 'report.pdf', 'application/pdf'],
      ['doc', 'legacy.doc', 'application/msword'],
      ['docx', 'memo.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      ['xls', 'legacy.xls', 'application/vnd.ms-excel'],
      ['xlsx', 'sheet.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      ['ppt', 'legacy.ppt', 'application/vnd.ms-powerpoint'],
      ['pptx', 'deck.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
      ['png', 'pixel.png', 'image/png'],
      ['jpeg', 'photo.jpeg', 'image/jpeg'],
      ['gif', 'anim.gif', 'image/gif'],
      ['svg', 'logo.svg', 'image/svg+xml'],
      ['csv', 'rows.csv', 'text/csv'],
      ['json', 'data.json', 'application/json'],
      ['xml', 'orders.xml', 'application/xml'],
      ['parquet', 'table.parquet', 'application/vnd.apache.parquet'],
      ['zip', 'bundle.zip', 'application/zip'],
    ] as const)(
      'stores %s (%s) as %s, lists it and serves it back byte for byte',
      async (kind, name, mime) => {
        const data = SAMPLES[kind]();
        const res = await upload(editor, data, name);
        if (res.status !== 201) throw new Error(JSON.stringify(res.body));
        expect(res.body).toEqual({
          id: expect.any(String),
          file_name: name,
          file_size: data.length,
          mime_type: mime,
          uploaded_by: { id: editor.id, full_name: 'Eve Editor' },
          created_at: expect.stringMatching(/Z$/),
        });
        const list = await t.http.get(files()).set(bearer(viewer));
        expect(list.status).toBe(200);
        expect(list.body.map((a: { id: string }) => a.id)).toContain(res.body.id);

        const link = await t.http
          .get(`${API}/catalog/attachments/${res.body.id}/download`)
          .set(bearer(viewer));
        expect(link.status).toBe(200);
        expect(link.body).toEqual({
          download_url: expect.stringContaining(
            `/api/v1.0/catalog/attachments/${res.body.id}/content?expires=`,
          ),
          file_name: name,
          expires_at: expect.stringMatching(/Z$/),
        });
        const file = await follow(link.body.download_url);
        expect(file.status).toBe(200);
        expect(file.headers['content-type']).toContain(mime);
        expect(file.headers['content-disposition']).toBe(
          `attachment; filename="${name}"; filename*=UTF-8''${name}`,
        );
        expect(file.headers['x-content-type-options']).toBe('nosniff');
        expect(Buffer.compare(file.body as Buffer, data)).toBe(0);
      },
    );

    it('lists newest first, with the uploader', async () => {
      const p = await createProduct(t.http, admin, space);
      const first = await upload(editor, SAMPLES.png(), 'a.png', 'image/png', p.id);
      const second = await upload(admin, SAMPLES.gif(), 'b.gif', 'image/gif', p.id);
      const list = await t.http.get(files(p.id)).set(bearer(viewer));
      expect(list.body.map((a: { id: string }) => a.id)).toEqual([second.body.id, first.body.id]);
      expect(list.body[0].uploaded_by).toEqual({ id: admin.id, full_name: 'Ada Admin' });
    });
  });

  describe('refused files', () => {
    it.each([
      ['an EXE', SAMPLES.exe(), 'setup.exe', 'application/x-msdownload', /EXE content/],
      ['an EXE renamed .pdf', SAMPLES.exe(), 'invoice.pdf', 'application/pdf', /EXE content/],
      ['HTML', SAMPLES.html(), 'page.html', 'text/html', /HTML is not accepted/],
      ['HTML renamed .xml', SAMPLES.html(), 'page.xml', 'application/xml', /HTML is not accepted/],
      [
        'a PNG named .pdf',
        SAMPLES.png(),
        'photo.pdf',
        'application/octet-stream',
        /named \.pdf but its content is PNG/,
      ],
      [
        'a GIF sent as image/png',
        SAMPLES.gif(),
        'x.gif',
        'image/png',
        /sent as image\/png but its content is GIF/,
      ],
      [
        'a DOCX named .zip',
        SAMPLES.docx(),
        'memo.zip',
        'application/zip',
        /named \.zip but its content is Word/,
      ],
      ['broken JSON', Buffer.from('{"a": [1, 2}'), 'bad.json', 'application/json', /mismatched/],
      ['ragged CSV', Buffer.from('a,b,c\n1,2\n'), 'bad.csv', 'text/csv', /2 fields where the header has 3/],
      [
        'plain prose',
        Buffer.from('Hello team\nSee the figures below.\n'),
        'notes.txt',
        'text/plain',
        /neither CSV, JSON nor XML/,
      ],
      ['an empty file', Buffer.alloc(0), 'empty.csv', 'text/csv', /empty/],
      ['a truncated ZIP', SAMPLES.zip().subarray(0, 80), 'cut.zip', 'application/zip', /truncated/],
    ])('refuses %s with 400 and keeps nothing', async (_label, data, name, type, why) => {
      const before = storedFiles().length;
      const res = await upload(editor, data, name, type);
      expectProblem(res, 400, why);
      expect(res.body.code).toBe('invalid_file');
      expect(storedFiles()).toHaveLength(before);
    });

    it('answers 422 for a body that is not the upload form', async () => {
      const json = await t.http.post(files()).set(bearer(editor)).send({ file: 'x' });
      expectProblem(json, 422);
      expect(invalidFields(json)).toEqual(['file']);

      const noFile = await t.http.post(files()).set(bearer(editor)).field('note', 'x');
      expectProblem(noFile, 422);

      const empty = await t.http
        .post(files())
        .set(bearer(editor))
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(multipartBody([]));
      expectProblem(empty, 422, /no file/);

      const otherName = await t.http
        .post(files())
        .set(bearer(editor))
        .attach('upload', SAMPLES.png(), 'a.png');
      expectProblem(otherName, 422);
      expect(invalidFields(otherName)).toEqual(['upload']);

      const two = await t.http
        .post(files())
        .set(bearer(editor))
        .attach('file', SAMPLES.png(), 'a.png')
        .attach('file', SAMPLES.gif(), 'b.gif');
      expectProblem(two, 422, /one file/);
    });

    it('answers 422 for a malformed product id and 404 for a missing product, before reading the file', async () => {
      expectProblem(
        await t.http.post(files('nope')).set(bearer(editor)).attach('file', SAMPLES.png(), 'a.png'),
        422,
      );
      const missing = await upload(
        editor,
        SAMPLES.png(),
        'a.png',
        'image/png',
        '00000000-0000-4000-8000-000000000000',
      );
      expectProblem(missing, 404);
    });
  });

  describe('the 50 MB limit', () => {
    it('answers 413 as soon as a streamed file passes 50 MB, keeps nothing and does not hold the file in memory', async () => {
      const before = storedFiles().length;
      global.gc?.();
      const rssBefore = process.memoryUsage().rss;
      const res = await streamUpload({
        url: `${t.baseUrl}${files()}`,
        token: editor.token,
        size: 50 * MB + 1,
        fileName: 'huge.csv',
        contentType: 'text/csv',
        prefix: Buffer.from('a,b\n'),
        fill: 0x61, // one long field of "a": valid CSV so far
      });
      const rssGrowth = process.memoryUsage().rss - rssBefore;
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toEqual(
        expect.objectContaining({ status: 413, title: 'Payload Too Large', code: 'payload_too_large' }),
      );
      expect(String(res.body.detail)).toMatch(/50 MB/);
      expect(storedFiles()).toHaveLength(before);
      // The client sent 50 MB through this process; far less than that stayed resident.
      expect(rssGrowth).toBeLessThan(40 * MB);
    });

    it('accepts a file of exactly 50 MB', async () => {
      const res = await streamUpload({
        url: `${t.baseUrl}${files()}`,
        token: editor.token,
        size: 50 * MB,
        fileName: 'big.csv',
        contentType: 'text/csv',
        prefix: Buffer.from('a,b\n1,'),
        fill: 0x32,
      });
      expect(res.status).toBe(201);
      expect(res.body.file_size).toBe(50 * MB);
      await storage.delete(objectKey(res.body.id as string));
      await dbQuery('DELETE FROM attachments WHERE id = $1', [res.body.id]);
    });

    it('refuses a declared Content-Length over the limit without reading the body', async () => {
      const res = await streamUpload({
        url: `${t.baseUrl}${files()}`,
        token: editor.token,
        size: 2 * MB,
        fileName: 'x.csv',
        contentType: 'text/csv',
        contentLength: 60 * MB,
      });
      expect(res.status).toBe(413);
      expect(res.headers.connection).toBe('close');
      expect(res.sent).toBeLessThan(2 * MB + 1);
    });
  });

  describe('file names', () => {
    async function rawUpload(filename: string, data: Buffer = SAMPLES.png(), star?: string) {
      return t.http
        .post(files())
        .set(bearer(editor))
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(
          multipartBody([
            {
              name: 'file',
              filename,
              filenameStar: star,
              contentType: 'application/octet-stream',
              body: data,
            },
          ]),
        );
    }

    it('keeps only the last path segment and drops quotes and control characters', async () => {
      const res = await rawUpload('..\\..\\windows\\evil\t\\".png');
      expect(res.status).toBe(201);
      expect(res.body.file_name).toBe('evil_.png');
      const traversal = await rawUpload('../../etc/passwd.png');
      expect(traversal.body.file_name).toBe('passwd.png');
    });

    it('cannot inject headers through the name, and serves non-ASCII names with filename*', async () => {
      const res = await rawUpload('fallback.png', SAMPLES.png(), 'Zoë ☕\r\nX-Injected: yes.png');
      expect(res.status).toBe(201);
      const link = await t.http.get(`${API}/catalog/attachments/${res.body.id}/download`).set(bearer(editor));
      const file = await follow(link.body.download_url);
      expect(file.headers['x-injected']).toBeUndefined();
      expect(file.headers['content-disposition']).toMatch(
        /^attachment; filename="Zoe _X-Injected_ yes\.png"; filename\*=UTF-8''Zo%C3%AB%20%E2%98%95X-Injected_%20yes\.png$/,
      );
    });

    it('names a file without a name after its kind', async () => {
      const empty = await rawUpload('', SAMPLES.pdf());
      expect(empty.status).toBe(201);
      expect(empty.body.file_name).toBe('attachment.pdf');
      const unnamed = await t.http
        .post(files())
        .set(bearer(editor))
        .attach('file', SAMPLES.pdf(), { filename: '...', contentType: 'application/pdf' });
      expect(unnamed.status).toBe(201);
      expect(unnamed.body.file_name).toBe('attachment.pdf');
    });
  });

  describe('downloads', () => {
    it('serves an SVG as a sandboxed download that cannot run script in the API origin', async () => {
      const svg = await uploaded(editor, 'svg', 'logo.svg');
      const link = await t.http.get(`${API}/catalog/attachments/${svg.id}/download`).set(bearer(viewer));
      const file = await follow(link.body.download_url);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(file.headers['content-security-policy']).toMatch(/^sandbox/);
      expect(file.headers['content-disposition']).toMatch(/^attachment;/);
      expect(file.headers['x-content-type-options']).toBe('nosniff');
    });

    it('refuses an altered link with 403', async () => {
      const a = await uploaded(editor, 'pdf', 'signed.pdf');
      const link = await t.http.get(`${API}/catalog/attachments/${a.id}/download`).set(bearer(viewer));
      const url = new URL(link.body.download_url);
      const signature = url.searchParams.get('signature')!;
      const expires = Number(url.searchParams.get('expires'));

      const later = new URL(url);
      later.searchParams.set('expires', String(expires + 3600));
      expectProblem(await t.http.get(later.pathname + later.search), 403, /not valid/);

      const forged = new URL(url);
      forged.searchParams.set(
        'signature',
        signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
      );
      expectProblem(await t.http.get(forged.pathname + forged.search), 403);

      const other = await uploaded(editor, 'png', 'other.png');
      const swapped = new URL(url);
      swapped.pathname = swapped.pathname.replace(a.id, other.id);
      expectProblem(await t.http.get(swapped.pathname + swapped.search), 403);

      expectProblem(await t.http.get(url.pathname), 403);
      expect((await follow(url.toString())).status).toBe(200);
    });

    it('refuses an expired link with 403', async () => {
      // As ATTACHMENT_LINK_TTL_SECONDS=1 would set it (the config object is what the service reads).
      const ttl = config.attachmentLinkTtlSeconds;
      config.attachmentLinkTtlSeconds = 1;
      try {
        const a = await uploaded(editor, 'png', 'brief.png');
        const link = await t.http.get(`${API}/catalog/attachments/${a.id}/download`).set(bearer(viewer));
        const url = new URL(link.body.download_url);
        expect(Date.parse(link.body.expires_at) - Date.now()).toBeLessThanOrEqual(1000);
        await new Promise((r) =>
          setTimeout(r, 50 + Math.max(0, Date.parse(link.body.expires_at) - Date.now())),
        );
        expectProblem(await t.http.get(url.pathname + url.search), 403, /expired/);
      } finally {
        config.attachmentLinkTtlSeconds = ttl;
      }
    });

    it('stops a link working once the attachment is deleted', async () => {
      const a = await uploaded(editor, 'png', 'gone.png');
      const link = await t.http.get(`${API}/catalog/attachments/${a.id}/download`).set(bearer(viewer));
      expect((await t.http.delete(`${API}/catalog/attachments/${a.id}`).set(bearer(editor))).status).toBe(
        200,
      );
      const url = new URL(link.body.download_url);
      expectProblem(await t.http.get(url.pathname + url.search), 403);
    });
  });

  describe('permissions', () => {
    it('hides everything from non-members (404)', async () => {
      const a = await uploaded(editor, 'png', 'private.png');
      expectProblem(await t.http.get(files()).set(bearer(outsider)), 404);
      expectProblem(await upload(outsider, SAMPLES.png(), 'x.png'), 404);
      expectProblem(
        await t.http.get(`${API}/catalog/attachments/${a.id}/download`).set(bearer(outsider)),
        404,
        /attachment/,
      );
      expectProblem(
        await t.http.delete(`${API}/catalog/attachments/${a.id}`).set(bearer(outsider)),
        404,
        /attachment/,
      );
    });

    it('needs edit access to upload (403 for a viewer)', async () => {
      expectProblem(await upload(viewer, SAMPLES.png(), 'x.png'), 403);
    });

    it('lets only the uploader, a Space Admin or a superadmin delete', async () => {
      const a = await uploaded(editor, 'png', 'one.png');
      expectProblem(
        await t.http.delete(`${API}/catalog/attachments/${a.id}`).set(bearer(viewer)),
        403,
        /uploader/,
      );
      expectProblem(await t.http.delete(`${API}/catalog/attachments/${a.id}`).set(bearer(editor2)), 403);
      const own = await t.http.delete(`${API}/catalog/attachments/${a.id}`).set(bearer(editor));
      expect(own.status).toBe(200);
      expect(own.body).toEqual({ message: 'The attachment was deleted.' });
      expect(await storage.exists(objectKey(a.id))).toBe(false);
      expectProblem(await t.http.delete(`${API}/catalog/attachments/${a.id}`).set(bearer(editor)), 404);

      const b = await uploaded(editor, 'png', 'two.png');
      expect((await t.http.delete(`${API}/catalog/attachments/${b.id}`).set(bearer(admin))).status).toBe(200);

      const c = await uploaded(editor, 'png', 'three.png');
      const root = await rootUser(t.http);
      expect((await t.http.delete(`${API}/catalog/attachments/${c.id}`).set(bearer(root))).status).toBe(200);
      expect(await storage.exists(objectKey(c.id))).toBe(false);
    });

    it('answers 422 for a malformed attachment id and 404 for an unknown one', async () => {
      expectProblem(await t.http.get(`${API}/catalog/attachments/nope/download`).set(bearer(editor)), 422);
      expectProblem(
        await t.http
          .get(`${API}/catalog/attachments/00000000-0000-4000-8000-000000000000/download`)
          .set(bearer(editor)),
        404,
      );
    });
  });

  describe('events and consistency', () => {
    it('emits attachment.created and attachment.deleted', async () => {
      const a = await uploaded(editor, 'csv', 'events.csv');
      await t.http.delete(`${API}/catalog/attachments/${a.id}`).set(bearer(editor));
      const events = await dbQuery<{
        type: string;
        space_id: string;
        actor_id: string;
        payload: Record<string, unknown>;
      }>(
        `SELECT type, space_id, actor_id, payload FROM outbox_events WHERE payload->>'attachment_id' = $1 ORDER BY occurred_at`,
        [a.id],
      );
      expect(events.map((e) => e.type)).toEqual(['attachment.created', 'attachment.deleted']);
      expect(events[0]).toEqual({
        type: 'attachment.created',
        space_id: space.id,
        actor_id: editor.id,
        payload: {
          attachment_id: a.id,
          space_id: space.id,
          parent_type: 'product',
          product_id: product.id,
          ticket_id: null,
          comment_id: null,
          file_name: 'events.csv',
          file_size: SAMPLES.csv().length,
          mime_type: 'text/csv',
          uploaded_by: editor.id,
        },
      });
      expect(events[1].payload.reason).toBe('deleted');
    });

    it('keeps row and object when the delete transaction fails midway', async () => {
      const a = await uploaded(editor, 'png', 'atomic.png');
      const outbox = t.app.get(OutboxService);
      const append = jest.spyOn(outbox, 'append').mockRejectedValueOnce(new Error('forced failure'));
      try {
        const res = await t.http.delete(`${API}/catalog/attachments/${a.id}`).set(bearer(editor));
        expectProblem(res, 500);
      } finally {
        append.mockRestore();
      }
      expect(await dbQuery('SELECT id FROM attachments WHERE id = $1', [a.id])).toHaveLength(1);
      expect(await storage.exists(objectKey(a.id))).toBe(true);
      const jobs = await dbQuery(`SELECT id FROM jobs WHERE singleton_key = $1`, [
        `purge:${objectKey(a.id)}`,
      ]);
      expect(jobs).toHaveLength(0);
    });

    it('deletes the object later when the storage fails right after the row is gone', async () => {
      const a = await uploaded(editor, 'png', 'retry.png');
      const remove = jest.spyOn(storage, 'delete').mockRejectedValueOnce(new Error('storage is down'));
      try {
        const res = await t.http.delete(`${API}/catalog/attachments/${a.id}`).set(bearer(editor));
        expect(res.status).toBe(200);
      } finally {
        remove.mockRestore();
      }
      expect(await dbQuery('SELECT id FROM attachments WHERE id = $1', [a.id])).toHaveLength(0);
      expect(await storage.exists(objectKey(a.id))).toBe(true);
      await t.app
        .get(DataSource)
        .query(`UPDATE jobs SET run_at = now() WHERE singleton_key = $1`, [`purge:${objectKey(a.id)}`]);
      await settle();
      expect(await storage.exists(objectKey(a.id))).toBe(false);
    });

    it('removes the rows and objects of a deleted product', async () => {
      const p = await createProduct(t.http, admin, space);
      const a = await upload(editor, SAMPLES.png(), 'a.png', 'image/png', p.id);
      const b = await upload(editor, SAMPLES.pdf(), 'b.pdf', 'application/pdf', p.id);
      expect(
        (await t.http.delete(`${API}/catalog/spaces/${space.slug}/products/${p.id}`).set(bearer(admin)))
          .status,
      ).toBe(204);
      await settle();
      await t.app
        .get(DataSource)
        .query(
          `UPDATE jobs SET run_at = now() WHERE name = 'attachments.purge-object' AND status = 'pending'`,
        );
      await settle();
      for (const id of [a.body.id, b.body.id]) {
        expect(await dbQuery('SELECT id FROM attachments WHERE id = $1', [id])).toHaveLength(0);
        expect(await storage.exists(objectKey(id))).toBe(false);
      }
      const events = await dbQuery<{ payload: { reason: string } }>(
        `SELECT payload FROM outbox_events WHERE type = 'attachment.deleted' AND payload->>'product_id' = $1`,
        [p.id],
      );
      expect(events.map((e) => e.payload.reason)).toEqual(['parent_deleted', 'parent_deleted']);
    });

    it('reaps an object left by a crash between storing it and writing its row', async () => {
      const key = 'attachments/00000000-0000-4000-8000-00000000dead';
      await storage.put(key, (await import('node:stream')).Readable.from([SAMPLES.png()]), {
        contentType: 'image/png',
      });
      await t.app.get(JobRunner).enqueue(null, 'attachments.reap-upload', { storage_key: key });
      const kept = await uploaded(editor, 'png', 'kept.png');
      await t.app
        .get(DataSource)
        .query(
          `UPDATE jobs SET run_at = now() WHERE name = 'attachments.reap-upload' AND status = 'pending'`,
        );
      await settle();
      expect(await storage.exists(key)).toBe(false);
      expect(await storage.exists(objectKey(kept.id))).toBe(true);
    });
  });
});
