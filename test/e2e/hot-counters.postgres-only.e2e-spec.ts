import { DataSource, QueryRunner } from 'typeorm';
import { NotificationsService } from '../../src/modules/notifications/notifications.service';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createProduct, createSpace, createUser, TestUser } from '../support/factories';
import { recordStatements } from '../support/statement-log';

const API = '/api/v1.0';

/**
 * Hot counters (issue 28): concurrent writes to one user's notification
 * counters or one space's incident counters neither queue behind each other
 * nor lose a count. PostgreSQL only: the embedded database has one
 * connection, so nothing there runs concurrently.
 */
describe('hot counters under concurrent writes', () => {
  let t: TestApp;
  let me: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    t = await startApp();
    me = await createUser(t.http);
    other = await createUser(t.http);
  });
  afterAll(() => t.close());

  const notifyIn = (em: DataSource['manager'], users: TestUser[], title: string) =>
    t.app.get(NotificationsService).notify(em, {
      recipients: users.map((u) => u.id),
      type: 'quality_alert',
      title,
      message: `${title} (details)`,
      data: { space_id: '00000000-0000-4000-8000-000000000001' } as never,
    });

  async function expectExactNotificationCounts(user: TestUser): Promise<void> {
    const [counted] = await dbQuery<{ unread: number; total: number }>(
      `SELECT COALESCE(sum(unread), 0)::int AS unread, COALESCE(sum(total), 0)::int AS total
         FROM notification_counters WHERE user_id = $1`,
      [user.id],
    );
    const [real] = await dbQuery<{ unread: number; total: number }>(
      `SELECT (count(*) FILTER (WHERE NOT read))::int AS unread, count(*)::int AS total
         FROM notifications WHERE user_id = $1`,
      [user.id],
    );
    expect(counted).toEqual(real);
    const api = await t.http.get(`${API}/notifications/unread-count`).set(bearer(user));
    expect(api.body.count).toBe(real.unread);
  }

  it('lets a notification to a user commit while another transaction that notified the user is still open', async () => {
    // Two pool connections on different counter shards (the shard is the backend pid modulo 16).
    const runners: QueryRunner[] = [];
    let pair: [QueryRunner, QueryRunner] | undefined;
    try {
      const shards = new Map<number, QueryRunner>();
      for (let i = 0; i < 4 && !pair; i++) {
        const runner = t.app.get(DataSource).createQueryRunner();
        runners.push(runner);
        const [{ pid }] = (await runner.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
        const clash = shards.get(pid % 16);
        if (clash === undefined && shards.size) pair = [[...shards.values()][0], runner];
        shards.set(pid % 16, runner);
      }
      if (!pair) throw new Error('no two pool connections on different shards');
      const [holder, second] = pair;
      await holder.startTransaction();
      await notifyIn(holder.manager, [me], 'held open');
      await second.startTransaction();
      // Would fail if the second notification queued behind the first's counter row.
      await second.query(`SET LOCAL lock_timeout = '2s'`);
      await notifyIn(second.manager, [me], 'not waiting');
      await second.commitTransaction();
      await holder.commitTransaction();
    } finally {
      for (const runner of runners) {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
    }
    await expectExactNotificationCounts(me);
  });

  it('keeps notification counts exact under concurrent notifications, reads and mark-all-read', async () => {
    const ds = t.app.get(DataSource);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => ds.transaction((em) => notifyIn(em, [me, other], `seed ${i}`))),
    );
    const seeded = await t.http.get(`${API}/notifications?size=10`).set(bearer(me));
    const ids = (seeded.body.items as { id: string }[]).map((n) => n.id);
    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) =>
        ds.transaction((em) => notifyIn(em, [me, other], `burst ${i}`)),
      ),
      ...ids.flatMap((id, i) =>
        [true, false, true].map((read) =>
          t.http
            .patch(`${API}/notifications/${id}`)
            .set(bearer(me))
            .send({ read: i % 2 === 0 ? read : !read })
            .expect(200),
        ),
      ),
      ...Array.from({ length: 3 }, () =>
        t.http.post(`${API}/notifications/mark-all-read`).set(bearer(me)).send({}).expect(200),
      ),
    ]);
    await expectExactNotificationCounts(me);
    await expectExactNotificationCounts(other);
  });

  it('reads or unreads a notification, or marks all read, in one statement with its count', async () => {
    await t.app.get(DataSource).transaction((em) => notifyIn(em, [me], 'one statement'));
    const [first] = (await t.http.get(`${API}/notifications?size=1`).set(bearer(me))).body.items as {
      id: string;
    }[];
    const requests = [
      () => t.http.patch(`${API}/notifications/${first.id}`).set(bearer(me)).send({ read: true }),
      () => t.http.patch(`${API}/notifications/${first.id}`).set(bearer(me)).send({ read: false }),
      () => t.http.post(`${API}/notifications/mark-all-read`).set(bearer(me)).send({}),
    ];
    for (const request of requests) {
      const log = recordStatements(t.app.getHttpServer());
      try {
        expect((await request()).status).toBe(200);
      } finally {
        log.stop();
      }
      // The caller's session, then the write: no transaction, no read before it.
      expect(log.statements.map((s) => s.text.split(' ')[0])).toEqual(['SELECT', 'WITH']);
    }
    await expectExactNotificationCounts(me);
  });

  it('keeps incident counts exact under concurrent alerts and resolutions in one space', async () => {
    const owner = await createUser(t.http);
    const space = await createSpace(t.http, owner);
    const products = [];
    for (let i = 0; i < 8; i++) products.push(await createProduct(t.http, owner, space));
    const pushed = await Promise.all(
      products.flatMap((p) =>
        [1, 2].map(() =>
          t.http
            .post(`${API}/spaces/${space.slug}/alerts`)
            .set(bearer(owner))
            .send({ product_id: p.id, alert_type: 'anomaly', severity: 'medium', message: 'odd' })
            .expect(201),
        ),
      ),
    );
    const incidents = [...new Set(pushed.map((r) => r.body.incident_id as string))];
    await Promise.all(
      incidents
        .slice(0, Math.ceil(incidents.length / 2))
        .map((id) =>
          t.http.post(`${API}/spaces/${space.slug}/incidents/${id}/resolve`).set(bearer(owner)).expect(200),
        ),
    );
    const counted = await dbQuery<{ status: string; n: number }>(
      `SELECT status, sum(total)::int AS n FROM quality_incident_counts
        WHERE space_id = $1 GROUP BY status HAVING sum(total) <> 0 ORDER BY status`,
      [space.id],
    );
    const real = await dbQuery<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM quality_incidents WHERE space_id = $1 GROUP BY status ORDER BY status`,
      [space.id],
    );
    expect(counted).toEqual(real);
    expect(real.reduce((sum, row) => sum + row.n, 0)).toBe(incidents.length);
  });
});
