import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { Wakeup } from '../../src/platform/jobs/wakeup.service';
import { embeddedRun, startApp, TestApp, workerDatabaseUrl } from '../support/app';

describe('post-commit wakeups', () => {
  let t: TestApp;
  let wakeup: Wakeup;

  beforeAll(async () => {
    // With DATABASE_URL set, as in production, wakeups travel by LISTEN/NOTIFY.
    t = await startApp(embeddedRun ? {} : { env: { DATABASE_URL: workerDatabaseUrl() } });
    wakeup = t.app.get(Wakeup);
  });
  afterAll(() => t.close());

  /** Counts the queries running at once on the listening connection (pg deprecates more than one, and pg 9 refuses it). */
  function watchListener(): { peak: () => number } {
    const listener = (wakeup as unknown as { listener: Client | null }).listener;
    // On PostgreSQL, signals travel by NOTIFY on the listening connection; embedded, they stay in-process.
    expect(listener === null).toBe(embeddedRun);
    let running = 0;
    let peak = 0;
    if (listener) {
      const query = listener.query.bind(listener) as (...args: unknown[]) => Promise<unknown>;
      (listener as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
        peak = Math.max(peak, ++running);
        return query(...args).finally(() => running--);
      };
    }
    return { peak: () => peak };
  }

  it('sends a burst of signals one statement at a time, and every topic arrives', async () => {
    const watch = watchListener();
    const topics = Array.from({ length: 50 }, () => `test:${randomUUID()}`);
    const arrived = topics.map(
      (topic) =>
        new Promise<void>((resolve) => {
          const stop = wakeup.on(topic, () => {
            stop();
            resolve();
          });
        }),
    );
    // As under write load: many transactions commit in the same tick, each signalling.
    for (const topic of topics) wakeup.signal(null, topic);
    await Promise.all(arrived);
    if (!embeddedRun) expect(watch.peak()).toBe(1);
  });
});
