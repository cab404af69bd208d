// Issue 2: the per-request cost of the foundation (auth, session check, ORM, serialisation)
// against a bare Nest route, on real PostgreSQL with 10k users.
import { join } from 'node:path';
import { measure, register, report, ROOT, scratchDatabase, signIn, startProcess } from './lib.mjs';

async function run() {
  const { url, client } = await scratchDatabase('verity_bench_foundation');
  const api = await startProcess({ env: { DATABASE_URL: url } });
  try {
    const password = 'bench-password-1';
    await register(api.base, 'bench@example.test', password);
    // 10k more users, inserted directly: the hashes are never verified.
    await client.query(
      `INSERT INTO users (email, password_hash, first_name, last_name)
       SELECT 'user' || n || '@example.test', 'x', 'User', 'N' || n FROM generate_series(1, 10000) AS n`,
    );
    await client.query('ANALYZE');
    const token = await signIn(api.base, 'bench@example.test', password);
    const auth = { authorization: `Bearer ${token}` };

    const ceilingServer = await startProcess({ script: join(ROOT, 'bench', 'ceiling-server.cjs'), readyPath: '/hello' });
    const ceiling = await measure('bare Nest route (ceiling)', { url: `${ceilingServer.base}/hello` });
    await ceilingServer.stop();

    const rows = [
      await measure('GET /health', { url: `${api.base}/api/v1.0/health` }),
      await measure('GET /auth/me (JWT + session check)', { url: `${api.base}/api/v1.0/auth/me`, headers: auth }),
      await measure('GET /preferences', { url: `${api.base}/api/v1.0/preferences`, headers: auth }),
    ];
    console.log('\n== foundation (10 connections, real PostgreSQL, 10k users) ==');
    report([ceiling], null);
    report(rows, ceiling.rps);
  } finally {
    await api.stop();
    await client.end();
  }
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
