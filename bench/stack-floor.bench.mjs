// Issue 28: how far GET /auth/me is from the floor of the stack it is built on. The built server and
// stack-floor-server.cjs (NestJS on Express, passport-jwt, pg, one prepared statement: the same work
// the FastAPI peer's route does) run at once on one database with the same JWT secret, 2 processes
// each, and short rounds alternate between them at 50 connections. What separates the two is the
// server's own per-request pipeline (middlewares, global guards and enhancers, its session check).
//
//   npm run bench -- stack-floor
//   BENCH_ROUNDS=6 BENCH_ROUND_SECONDS=5 node bench/stack-floor.bench.mjs
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { measure, register, ROOT, scratchDatabase, signIn, startProcess } from './lib.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 5);
const JWT_SECRET = 'stack-floor-secret-stack-floor-secret-01';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const { url, client } = await scratchDatabase('verity_bench_stack_floor');
  const env = { DATABASE_URL: url, JWT_SECRET, WEB_CONCURRENCY: '2' };
  const verity = await startProcess({ env });
  const floor = await startProcess({ env, script: join(ROOT, 'bench', 'stack-floor-server.cjs') });
  try {
    await register(verity.base, 'floor@example.test', 'bench-password-1');
    const token = await signIn(verity.base, 'floor@example.test', 'bench-password-1');
    const headers = { authorization: `Bearer ${token}` };
    const sides = { verity: verity.base, floor: floor.base };
    const rps = { verity: [], floor: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // ABBA: the machine's drift falls on both alike.
      const order = round % 2 ? ['floor', 'verity'] : ['verity', 'floor'];
      for (const side of order) {
        const row = await measure(side, {
          url: `${sides[side]}/api/v1.0/auth/me`,
          headers,
          connections: 50,
          duration: SECONDS,
        });
        rps[side].push(row.rps);
      }
    }
    console.log(
      `GET /auth/me, ${ROUNDS} rounds of ${SECONDS} s, 50 connections, 2 processes each, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(
      `  stack floor (stack-floor-server.cjs): median ${median(rps.floor)} req/s  (${rps.floor.join(', ')})`,
    );
    console.log(
      `  Verity:                              median ${median(rps.verity)} req/s  (${rps.verity.join(', ')})`,
    );
    console.log(`  Verity / floor: ${(median(rps.verity) / median(rps.floor)).toFixed(2)}`);
  } finally {
    await Promise.all([verity.stop(), floor.stop()]);
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
