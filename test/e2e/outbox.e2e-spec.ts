import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { Wakeup } from '../../src/platform/jobs/wakeup.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { embeddedRun, startApp, TestApp, workerDatabaseUrl } from '../support/app';
import { dbQuery } from '../support/db';
import { createSpace, createUser, TestUser } from '../support/factories';
import { recordStatements } from '../support/statement-log';

describe('outbox dispatch', () => {
  let t: TestApp;
  let user: TestUser;
  let dispatcher: OutboxDispatcher;
  const failing = new Set<string>();
  const batchFailing = new Set<string>();
  const batchCalls: string[][] = [];

  beforeAll(async () => {
    // With DATABASE_URL set, as in production (wakeups between processes travel by NOTIFY).
    t = await startApp(embeddedRun ? {} : { env: { DATABASE_URL: workerDatabaseUrl() } });
    user = await createUser(t.http);
    dispatcher = t.app.get(OutboxDispatcher);
    await dbQuery(
      `CREATE TABLE IF NOT EXISTS outbox_test_effects (event_id uuid NOT NULL, slug text NOT NULL)`,
    );
    // A consumer with an effect in the dispatching transaction, failing for the spaces named in `failing`.
    dispatcher.on('space.created', 'test.effects', async (event, em: EntityManager) => {
      await em.query(`INSERT INTO outbox_test_effects (event_id, slug) VALUES ($1, $2)`, [
        event.id,
        event.data.slug,
      ]);
      if (failing.has(event.data.slug)) throw new Error(`refused ${event.data.slug}`);
    });
    // A batch consumer recording what each call was given, failing when a call holds a slug of `batchFailing`.
    dispatcher.onBatch(['space.created'], 'test.batch', async (events) => {
      const slugs = events.map((event) => event.data.slug);
      batchCalls.push(slugs);
      const refused = slugs.find((slug) => batchFailing.has(slug));
      if (refused) throw new Error(`batch refused ${refused}`);
    });
  });
  afterAll(async () => {
    await t.close();
    await dbQuery(`DROP TABLE IF EXISTS outbox_test_effects`);
  });

  it("wakes only this process's dispatcher when a write commits its event: no NOTIFY", async () => {
    const log = recordStatements();
    try {
      const woken = new Promise<void>((resolve) => {
        const stop = t.app.get(Wakeup).on('outbox', () => {
          stop();
          resolve();
        });
      });
      await createSpace(t.http, user);
      await woken;
    } finally {
      log.stop();
    }
    expect(log.statements.filter((s) => /pg_notify|NOTIFY/i.test(s.text))).toEqual([]);
  });

  it('holds back only the failing event of a batch; the others take effect once', async () => {
    const slugs = Array.from({ length: 5 }, () => `outbox-${randomUUID().slice(0, 8)}`);
    failing.add(slugs[2]);
    // Written before any dispatch can claim them, so they are one batch.
    await dispatcher.beforeApplicationShutdown();
    for (const slug of slugs) await createSpace(t.http, user, { slug });
    await dispatcher.dispatchBatch();

    const effects = await dbQuery<{ slug: string; n: number }>(
      `SELECT slug, count(*)::int AS n FROM outbox_test_effects WHERE slug = ANY($1) GROUP BY slug ORDER BY slug`,
      [slugs],
    );
    expect(effects).toEqual(
      slugs
        .filter((slug) => slug !== slugs[2])
        .sort()
        .map((slug) => ({ slug, n: 1 })),
    );
    const events = await dbQuery<{
      slug: string;
      published: boolean;
      attempts: number;
      last_error: string | null;
    }>(
      `SELECT payload->>'slug' AS slug, published_at IS NOT NULL AS published, attempts, last_error
         FROM outbox_events WHERE type = 'space.created' AND payload->>'slug' = ANY($1)`,
      [slugs],
    );
    expect(events).toHaveLength(5);
    for (const event of events) {
      expect(event).toEqual(
        event.slug === slugs[2]
          ? { slug: event.slug, published: false, attempts: 1, last_error: `refused ${slugs[2]}` }
          : { slug: event.slug, published: true, attempts: 0, last_error: null },
      );
    }
  });

  it("gives a batch consumer the batch's events in one call, and each event alone once the batch failed", async () => {
    const slugs = Array.from({ length: 4 }, () => `batch-${randomUUID().slice(0, 8)}`);
    // The previous test's failed event may be due again meanwhile: only this test's events count.
    const calls = () =>
      batchCalls.map((call) => call.filter((slug) => slugs.includes(slug))).filter((call) => call.length);
    await dispatcher.beforeApplicationShutdown();
    for (const slug of slugs.slice(0, 2)) await createSpace(t.http, user, { slug });
    batchCalls.length = 0;
    await dispatcher.dispatchBatch();
    expect(calls()).toEqual([slugs.slice(0, 2)]);

    batchFailing.add(slugs[3]);
    for (const slug of slugs.slice(2)) await createSpace(t.http, user, { slug });
    batchCalls.length = 0;
    await dispatcher.dispatchBatch();
    expect(calls()).toEqual([slugs.slice(2), [slugs[2]], [slugs[3]]]);
    const published = await dbQuery<{ slug: string; published: boolean }>(
      `SELECT payload->>'slug' AS slug, published_at IS NOT NULL AS published
         FROM outbox_events WHERE type = 'space.created' AND payload->>'slug' = ANY($1) ORDER BY occurred_at`,
      [slugs],
    );
    expect(published).toEqual(slugs.map((slug) => ({ slug, published: slug !== slugs[3] })));
  });

  it('claims a batch and marks it published in one statement, in the transaction its consumers write in', async () => {
    const slugs = Array.from({ length: 3 }, () => `one-${randomUUID().slice(0, 8)}`);
    await dispatcher.beforeApplicationShutdown();
    for (const slug of slugs) await createSpace(t.http, user, { slug });
    const log = recordStatements();
    let texts: string[];
    try {
      await dispatcher.dispatchBatch();
      // Read before stop(), which leaves out the dispatcher's passes.
      texts = log.statements.map((s) => s.text);
    } finally {
      log.stop();
    }
    expect(texts[0]).toBe('START TRANSACTION');
    expect(texts[1]).toMatch(
      /^WITH due AS \( SELECT id FROM outbox_events .* UPDATE outbox_events e SET published_at = now\(\)/,
    );
    expect(texts.at(-1)).toBe('COMMIT');
    // No savepoint and no second statement on the events: only the consumers' own statements between.
    expect(texts.filter((text) => /SAVEPOINT|outbox_events/.test(text))).toEqual([texts[1]]);
    const effects = await dbQuery<{ slug: string }>(
      `SELECT slug FROM outbox_test_effects WHERE slug = ANY($1) ORDER BY slug`,
      [slugs],
    );
    expect(effects.map((e) => e.slug)).toEqual([...slugs].sort());
  });
});
