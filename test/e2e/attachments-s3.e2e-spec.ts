import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../src/config/app.config';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { ObjectStorage } from '../../src/platform/storage/object-storage';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createProduct, createSpace, createUser, TestSpace, TestUser } from '../support/factories';
import { expectProblem } from '../support/problem';
import { SAMPLES } from '../support/sample-files';
import { S3_BUCKET, S3_KEY, S3Server, startS3Server } from '../support/s3-server';
import { streamUpload } from '../support/uploads';

const API = '/api/v1.0';
const MB = 1024 * 1024;

/** STORAGE_BACKEND=s3 against a real S3-compatible server process (s3rver), not a mock. */
describe('attachments on S3-compatible storage', () => {
  let s3: S3Server;
  let t: TestApp;
  let storage: ObjectStorage;
  let user: TestUser;
  let space: TestSpace;
  let product: { id: string };

  const files = () => `${API}/catalog/spaces/${space.slug}/products/${product.id}/attachments`;

  /** The objects the server holds, read from its directory (s3rver's listing does not verify SDK v3 signatures). */
  function bucketKeys(): string[] {
    const root = join(s3.directory, S3_BUCKET);
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
      );
    return walk(root)
      .filter((path) => path.endsWith('._S3rver_object'))
      .map((path) => relative(root, path).replace(/\._S3rver_object$/, ''))
      .sort();
  }

  async function link(id: string): Promise<string> {
    const res = await t.http.get(`${API}/catalog/attachments/${id}/download`).set(bearer(user));
    expect(res.status).toBe(200);
    return res.body.download_url as string;
  }

  beforeAll(async () => {
    s3 = await startS3Server();
    t = await startApp({
      env: {
        STORAGE_BACKEND: 's3',
        S3_ENDPOINT: s3.endpoint,
        S3_REGION: 'us-east-1',
        S3_BUCKET,
        S3_ACCESS_KEY_ID: S3_KEY,
        S3_SECRET_ACCESS_KEY: S3_KEY,
        S3_FORCE_PATH_STYLE: 'true',
      },
    });
    storage = t.app.get(ObjectStorage);
    user = await createUser(t.http, { first_name: 'Sam', last_name: 'Three' });
    space = await createSpace(t.http, user);
    product = await createProduct(t.http, user, space);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.stop();
  });

  it('uses the s3 backend', () => {
    expect(storage.backend).toBe('s3');
  });

  it('stores uploads in the bucket and answers a presigned URL of the store', async () => {
    const data = SAMPLES.svg();
    const res = await t.http.post(files()).set(bearer(user)).attach('file', data, 'logo.svg');
    expect(res.status).toBe(201);
    expect(bucketKeys()).toContain(`attachments/${res.body.id}`);

    const url = await link(res.body.id);
    expect(url.startsWith(`${s3.endpoint}/${S3_BUCKET}/attachments/${res.body.id}?`)).toBe(true);
    expect(url).toMatch(/X-Amz-Signature=/);
    const got = await fetch(url);
    expect(got.status).toBe(200);
    // The store answers with the API's safe headers: a download, never an inline SVG.
    expect(got.headers.get('content-disposition')).toBe(
      `attachment; filename="logo.svg"; filename*=UTF-8''logo.svg`,
    );
    expect(got.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(Buffer.compare(Buffer.from(await got.arrayBuffer()), data)).toBe(0);
  });

  it('gets 403 from the store for an altered or expired presigned URL', async () => {
    const res = await t.http.post(files()).set(bearer(user)).attach('file', SAMPLES.pdf(), 'a.pdf');
    const url = new URL(await link(res.body.id));
    const altered = new URL(url);
    altered.searchParams.set('X-Amz-Expires', '604800');
    expect((await fetch(altered)).status).toBe(403);

    const config = t.app.get<AppConfig>(APP_CONFIG);
    const ttl = config.attachmentLinkTtlSeconds;
    config.attachmentLinkTtlSeconds = 1;
    try {
      const short = await link(res.body.id);
      await new Promise((r) => setTimeout(r, 2100));
      expect((await fetch(short)).status).toBe(403);
    } finally {
      config.attachmentLinkTtlSeconds = ttl;
    }
  });

  it('streams a large file through multipart upload, intact', async () => {
    const prefix = Buffer.from('id,payload\n1,');
    const size = 12 * MB;
    const res = await streamUpload({
      url: `${t.baseUrl}${files()}`,
      token: user.token,
      size,
      fileName: 'large.csv',
      contentType: 'text/csv',
      prefix,
      fill: 0x7a,
    });
    expect(res.status).toBe(201);
    expect(res.body.file_size).toBe(size);
    const got = await fetch(await link(res.body.id as string));
    const body = Buffer.from(await got.arrayBuffer());
    expect(body.length).toBe(size);
    const expected = createHash('sha256')
      .update(prefix)
      .update(Buffer.alloc(size - prefix.length, 0x7a))
      .digest('hex');
    expect(createHash('sha256').update(body).digest('hex')).toBe(expected);
  });

  it('leaves nothing in the bucket for a refused or oversized file', async () => {
    const before = bucketKeys();
    expectProblem(await t.http.post(files()).set(bearer(user)).attach('file', SAMPLES.html(), 'x.html'), 400);
    // Refused only at its very end: the last record is ragged.
    const ragged = Buffer.from('a,b\n' + '1,2\n'.repeat(200_000) + '3\n');
    expectProblem(
      await t.http.post(files()).set(bearer(user)).attach('file', ragged, 'r.csv'),
      400,
      /fields/,
    );
    const huge = await streamUpload({
      url: `${t.baseUrl}${files()}`,
      token: user.token,
      size: 50 * MB + 1024,
      fileName: 'huge.zip',
      contentType: 'application/zip',
      prefix: SAMPLES.zip(),
    });
    expect(huge.status).toBe(413);
    expect(bucketKeys()).toEqual(before);
  });

  it('streams ticket attachments from the store through the API', async () => {
    const ticket = await t.http
      .post(`${API}/issues/tickets`)
      .set(bearer(user))
      .send({ space_id: space.id, title: 'S3 ticket', priority: 'low' });
    const data = SAMPLES.xlsx();
    const up = await t.http
      .post(`${API}/issues/tickets/${ticket.body.id}/attachments`)
      .set(bearer(user))
      .attach('file', data, 'book.xlsx');
    expect(up.status).toBe(201);
    const got = await t.http
      .get(`${API}/issues/attachments/${up.body.id}`)
      .set(bearer(user))
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(Buffer.compare(got.body as Buffer, data)).toBe(0);
  });

  it('deletes the object, and when the store is down, deletes it once it is back', async () => {
    const a = await t.http.post(files()).set(bearer(user)).attach('file', SAMPLES.png(), 'a.png');
    expect((await t.http.delete(`${API}/catalog/attachments/${a.body.id}`).set(bearer(user))).status).toBe(
      200,
    );
    expect(bucketKeys()).not.toContain(`attachments/${a.body.id}`);

    const b = await t.http.post(files()).set(bearer(user)).attach('file', SAMPLES.gif(), 'b.gif');
    await s3.stop();
    try {
      const res = await t.http.delete(`${API}/catalog/attachments/${b.body.id}`).set(bearer(user));
      expect(res.status).toBe(200);
      expect(await dbQuery('SELECT id FROM attachments WHERE id = $1', [b.body.id])).toHaveLength(0);
    } finally {
      await s3.restart();
    }
    expect(bucketKeys()).toContain(`attachments/${b.body.id}`);
    await t.app
      .get(DataSource)
      .query(`UPDATE jobs SET run_at = now() WHERE singleton_key = $1`, [`purge:attachments/${b.body.id}`]);
    await t.app.get(JobRunner).drain();
    expect(bucketKeys()).not.toContain(`attachments/${b.body.id}`);
  });

  it('answers 503 for an upload while the store is down, and keeps no row', async () => {
    const before = await dbQuery<{ n: string }>('SELECT count(*) AS n FROM attachments');
    await s3.stop();
    try {
      const res = await t.http.post(files()).set(bearer(user)).attach('file', SAMPLES.png(), 'down.png');
      expectProblem(res, 503, /storage is unavailable/);
    } finally {
      await s3.restart();
    }
    expect(await dbQuery('SELECT count(*) AS n FROM attachments')).toEqual(before);
  });
});
