// Issue 28: how far GET /auth/me and POST /spaces are from the floor of the stack they are built on.
// The built server and stack-floor-server.cjs (NestJS on Express, passport-jwt, pg, one prepared
// statement each: the same work the FastAPI peer's routes do; for the write, a class-validator DTO
// too) run at once on one database with the same JWT secret, 2 processes each, and short rounds
// alternate between them at 50 connections. What separates the two is the server's own per-request
// pipeline (middlewares, global guards and enhancers, its session check) and, for the write, what it
// does beyond the peer (the space.created event, the search trigger, the default features).
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
    let created = 0;
    const routes = {
      'GET /auth/me': { path: '/api/v1.0/auth/me' },
      // A fresh name on every request (a repeated one would be a 409).
      'POST /spaces': {
        path: '/',
        requests: [
          {
            method: 'POST',
            path: '/api/v1.0/spaces',
            setupRequest: (request) => ({ ...request, body: JSON.stringify({ name: `Floor ${++created}` }) }),
          },
        ],
      },
    };
    const rps = Object.fromEntries(Object.keys(routes).map((route) => [route, { verity: [], floor: [] }]));
    for (let round = 0; round < ROUNDS; round++) {
      // ABBA: the machine's drift falls on both alike.
      const order = round % 2 ? ['floor', 'verity'] : ['verity', 'floor'];
      for (const [route, target] of Object.entries(routes)) {
        for (const side of order) {
          const row = await measure(`${side} ${route}`, {
            url: `${sides[side]}${target.path}`,
            ...(target.requests ? { requests: target.requests } : {}),
            headers: { ...headers, 'content-type': 'application/json' },
            connections: 50,
            duration: SECONDS,
          });
          rps[route][side].push(row.rps);
        }
      }
    }
    console.log(
      `${ROUNDS} rounds of ${SECONDS} s, 50 connections, 2 processes each, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    for (const [route, sideRps] of Object.entries(rps)) {
      console.log(`${route}`);
      console.log(`  stack floor (stack-floor-server.cjs): median ${median(sideRps.floor)} req/s  (${sideRps.floor.join(', ')})`);
      console.log(`  Verity:                              median ${median(sideRps.verity)} req/s  (${sideRps.verity.join(', ')})`);
      console.log(`  Verity / floor: ${(median(sideRps.verity) / median(sideRps.floor)).toFixed(2)}`);
    }
  } finally {
    await Promise.all([verity.stop(), floor.stop()]);
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
