// Issue 4: events per second from commit to a signed webhook delivery at a local receiver, the lag
// from commit to delivery, and the unread count of a user with 100k notifications.
import { createServer } from 'node:http';
import { measure, register, report, scratchDatabase, signIn, startProcess } from './lib.mjs';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const STEADY_RATE = 300; // events per second, the target rate
const STEADY_SECONDS = 10;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function run() {
  const { url, client } = await scratchDatabase('verity_bench_events');
  const api = await startProcess({ env: { DATABASE_URL: url, ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
  let lags = [];
  let expected = EVENTS;
  let resolveAll;
  let allReceived = new Promise((r) => (resolveAll = r));
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const sent = Date.parse(JSON.parse(body).timestamp);
      lags.push(Date.now() - sent);
      res.writeHead(204).end();
      if (lags.length === expected) resolveAll();
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const password = 'bench-password-1';
    await register(api.base, 'events@example.test', password);
    const token = await signIn(api.base, 'events@example.test', password);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const space = await (
      await fetch(`${api.base}/api/v1.0/spaces`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench events' }) })
    ).json();
    const hook = await fetch(`${api.base}/api/v1.0/spaces/${space.slug}/webhooks`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ url: `http://127.0.0.1:${receiver.address().port}/hook`, event_types: ['product.created'] }),
    });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);

    // Commit EVENTS events in one transaction, as producers would have, then wake the dispatcher.
    const started = Date.now();
    await client.query(
      `INSERT INTO outbox_events (type, space_id, payload)
       SELECT 'product.created', $1::uuid, jsonb_build_object('product_id', gen_random_uuid(), 'space_id', $1::text, 'name', 'p' || n)
         FROM generate_series(1, $2) AS n`,
      [space.id, EVENTS],
    );
    await client.query(`SELECT pg_notify('verity_wakeup', 'outbox')`);
    await allReceived;
    const seconds = (Date.now() - started) / 1000;
    const burstLags = [...lags].sort((a, b) => a - b);

    // Then a steady 300 events/s for 10 s, committed in small transactions as requests would.
    lags = [];
    expected = STEADY_RATE * STEADY_SECONDS;
    allReceived = new Promise((r) => (resolveAll = r));
    const perTick = STEADY_RATE / 10;
    for (let tick = 0; tick < STEADY_SECONDS * 10; tick++) {
      const due = Date.now() + 100;
      await client.query(
        `WITH batch AS (
           INSERT INTO outbox_events (type, space_id, payload)
           SELECT 'product.created', $1::uuid, jsonb_build_object('product_id', gen_random_uuid(), 'space_id', $1::text, 'name', 'p' || n)
             FROM generate_series(1, $2) AS n RETURNING 1)
         SELECT pg_notify('verity_wakeup', 'outbox') FROM (SELECT count(*) FROM batch) AS done`,
        [space.id, perTick],
      );
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    }
    await allReceived;
    const steadyLags = [...lags].sort((a, b) => a - b);

    // 100k notifications for one user, with its counters as the service keeps them.
    const me = await (await fetch(`${api.base}/api/v1.0/auth/me`, { headers: auth })).json();
    await client.query(
      `INSERT INTO notifications (user_id, type, title, message, read)
       SELECT $1, (ARRAY['quality_alert','issue_assigned','access_submitted'])[1 + n % 3], 'n' || n, 'message', n % 2 = 0
         FROM generate_series(1, 100000) AS n`,
      [me.id],
    );
    await client.query(
      `INSERT INTO notification_counters (user_id, type, shard, unread, total)
       SELECT user_id, type, 0, count(*) FILTER (WHERE NOT read), count(*) FROM notifications WHERE user_id = $1 GROUP BY user_id, type`,
      [me.id],
    );
    await client.query('ANALYZE');
    const unread = await measure('GET /notifications/unread-count (100k)', {
      url: `${api.base}/api/v1.0/notifications/unread-count`,
      headers: { authorization: `Bearer ${token}` },
      connections: 10,
    });
    const list = await measure('GET /notifications?size=20 (100k)', {
      url: `${api.base}/api/v1.0/notifications?size=20&unread_only=true`,
      headers: { authorization: `Bearer ${token}` },
      connections: 10,
    });

    console.log(`\n== events backbone (real PostgreSQL) ==`);
    console.log(
      `burst: ${EVENTS} events committed at once -> signed webhook deliveries: ${Math.round(EVENTS / seconds)} events/s ` +
        `(lag p50 ${percentile(burstLags, 50)} ms, p99 ${percentile(burstLags, 99)} ms, queueing included)`,
    );
    console.log(
      `steady: ${STEADY_RATE} events/s for ${STEADY_SECONDS} s -> commit-to-delivery lag p50 ${percentile(steadyLags, 50)} ms, ` +
        `p99 ${percentile(steadyLags, 99)} ms`,
    );
    report([unread, list], null);
  } finally {
    receiver.close();
    await api.stop();
    await client.end();
  }
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
