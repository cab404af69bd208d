import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Get, Logger, Module, Post } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request, { Response } from 'supertest';
import { ProblemDetailsFilter } from '../../src/common/errors/problem-details.filter';
import { EndpointRateLimit } from '../../src/common/http/rate-limit.decorators';
import { loadConfig } from '../../src/config/app.config';
import { ConfigModule } from '../../src/config/config.module';
import { RateLimitGuard } from '../../src/platform/rate-limit/rate-limit.guard';
import { RateLimitsModule } from '../../src/modules/rate-limits/rate-limits.module';
import { MetricsModule } from '../../src/platform/metrics/metrics.module';
import { startApp, TestApp } from '../support/app';
import { Clock } from '../../src/platform/clock/clock.service';
import { pinLimiterClock } from '../support/limiter-clock';
import { bearer, createUser, login, rootUser, TestUser } from '../support/factories';
import { expectProblem } from '../support/problem';

const ME = '/api/v1.0/auth/me';
const STATUS = '/api/v1.0/rate-limit';
const KEYS = '/api/v1.0/api-keys/me/api-keys';
const REDIS_URL = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MINUTE = 60_000;
const HOUR = 3_600_000;
// Five seconds into a wall-clock hour, far from today so no real traffic shares its windows.
const HOUR_START = Date.UTC(2031, 0, 1, 10, 0, 0);

const redisEnv = () => ({ REDIS_URL, REDIS_KEY_PREFIX: `verity-e2e:${randomUUID()}:` });

/** An anonymous request: counted against the client address, answered 401 without touching the database. */
const anonymous = (t: TestApp) => t.http.get(ME);

function limitHeaders(res: Response) {
  return {
    limit: res.headers['x-ratelimit-limit'],
    remaining: res.headers['x-ratelimit-remaining'],
    reset: res.headers['x-ratelimit-reset'],
  };
}

function expectNoLimitHeaders(res: Response) {
  for (const name of [
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'ratelimit',
    'ratelimit-policy',
  ]) {
    expect(res.headers).not.toHaveProperty(name);
  }
}

async function repeat(times: number, send: () => Promise<Response>, status: number): Promise<Response> {
  let last: Response | undefined;
  for (let i = 0; i < times; i++) {
    last = await send();
    if (last.status !== status)
      throw new Error(`request ${i + 1} of ${times}: expected ${status}, got ${last.status}`);
  }
  return last!;
}

describe.each([
  ['in memory', () => ({})],
  ['in Redis', redisEnv],
])('rate limits counted %s', (_label, storeEnv) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({
      env: { RATE_LIMIT_ANON_TIER: 'standard', RATE_LIMIT_USER_TIER: 'standard', ...storeEnv() },
    });
  });
  afterAll(() => t.close());

  it('lets the 60th request of a minute through and refuses the 61st with 429, Retry-After and headers', async () => {
    const clock = pinLimiterClock(t, HOUR_START + 5_000);
    const minuteEnd = (HOUR_START + MINUTE) / 1000;

    const first = await anonymous(t);
    expectProblem(first, 401);
    expect(limitHeaders(first)).toEqual({ limit: '60', remaining: '59', reset: String(minuteEnd) });
    expect(first.headers['ratelimit-policy']).toBe('60;w=60, 1000;w=3600');
    expect(first.headers['ratelimit']).toBe('limit=60, remaining=59, reset=55');

    const sixtieth = await repeat(59, () => anonymous(t), 401);
    expect(limitHeaders(sixtieth)).toEqual({ limit: '60', remaining: '0', reset: String(minuteEnd) });

    clock.set(HOUR_START + 47_500);
    const refused = await anonymous(t);
    expectProblem(refused, 429, 'Rate limit exceeded: try again in 13 seconds.');
    expect(refused.headers['retry-after']).toBe('13');
    expect(limitHeaders(refused)).toEqual({ limit: '60', remaining: '0', reset: String(minuteEnd) });
    expect(refused.headers['ratelimit']).toBe('limit=60, remaining=0, reset=13');

    // The last millisecond of the window is still in it; the next one starts afresh.
    clock.set(HOUR_START + MINUTE - 1);
    expectProblem(await anonymous(t), 429, /try again in 1 second\./);
    clock.set(HOUR_START + MINUTE);
    const next = await anonymous(t);
    expectProblem(next, 401);
    // 59 of 60 left in the minute, 939 of 1000 in the hour: the hour is now the closer to running out.
    expect(limitHeaders(next)).toEqual({
      limit: '1000',
      remaining: '939',
      reset: String((HOUR_START + HOUR) / 1000),
    });
  });

  it('does not charge the hour window for requests the minute window refused', async () => {
    const hour = HOUR_START + 1 * HOUR;
    const clock = pinLimiterClock(t, hour);
    await repeat(60, () => anonymous(t), 401);
    await repeat(15, () => anonymous(t), 429);
    clock.advance(MINUTE);
    const status = await t.http.get(STATUS);
    expect(status.body.windows).toEqual([
      { window: 'minute', window_seconds: 60, limit: 60, remaining: 60, reset: (hour + 2 * MINUTE) / 1000 },
      { window: 'hour', window_seconds: 3600, limit: 1000, remaining: 940, reset: (hour + HOUR) / 1000 },
    ]);
  });

  it('refuses the 1001st request of an hour, reports the hour window, and charges the refused ones to no minute', async () => {
    const hour = HOUR_START + 2 * HOUR;
    const clock = pinLimiterClock(t, hour);
    for (let minute = 0; minute < 16; minute++) {
      clock.set(hour + minute * MINUTE);
      const last = await repeat(60, () => anonymous(t), 401);
      // An exhausted minute (0 left) is always the closer one to running out.
      expect(limitHeaders(last)).toEqual(expect.objectContaining({ limit: '60', remaining: '0' }));
    }
    // 960 used: the hour (40 of 1000 left) is now closer to running out than a fresh minute (59 of 60).
    clock.set(hour + 16 * MINUTE);
    const closer = await anonymous(t);
    expect(limitHeaders(closer)).toEqual({
      limit: '1000',
      remaining: '39',
      reset: String((hour + HOUR) / 1000),
    });
    await repeat(39, () => anonymous(t), 401);

    const refused = await anonymous(t);
    const wait = (HOUR - 16 * MINUTE) / 1000;
    expectProblem(refused, 429, `Rate limit exceeded: try again in ${wait} seconds.`);
    expect(refused.headers['retry-after']).toBe(String(wait));
    expect(limitHeaders(refused)).toEqual({
      limit: '1000',
      remaining: '0',
      reset: String((hour + HOUR) / 1000),
    });

    clock.set(hour + 17 * MINUTE);
    await repeat(70, () => anonymous(t), 429);
    const status = await t.http.get(STATUS);
    expect(status.body.windows.map((w: { remaining: number }) => w.remaining)).toEqual([60, 0]);

    clock.set(hour + HOUR);
    expectProblem(await anonymous(t), 401);
  }, 120_000); // a thousand requests in a row: longer than the default 30 s on a loaded machine
});

describe('rate-limit buckets, headers and exemptions', () => {
  let t: TestApp;
  let root: TestUser;
  let clock: ReturnType<typeof pinLimiterClock>;

  beforeAll(async () => {
    t = await startApp({ env: { RATE_LIMIT_ANON_TIER: 'standard', RATE_LIMIT_USER_TIER: 'premium' } });
    root = await rootUser(t.http);
    clock = pinLimiterClock(t, HOUR_START + 10 * HOUR);
  });
  // Setup (registering users) gets an hour of its own too, away from what the last test used up.
  beforeEach(() => freshHour());
  afterAll(() => t.close());

  // Each test moves to an hour of its own, so that every bucket starts empty.
  let hours = 10;
  const freshHour = () => {
    hours += 1;
    clock.set(HOUR_START + hours * HOUR);
  };

  it('counts a signed-in user per user at RATE_LIMIT_USER_TIER, apart from their address', async () => {
    const user = await createUser(t.http);
    const other = await createUser(t.http);
    freshHour();
    const first = await t.http.get(ME).set(bearer(user));
    expect(first.status).toBe(200);
    expect(limitHeaders(first)).toEqual(expect.objectContaining({ limit: '300', remaining: '299' }));
    expect(first.headers['ratelimit-policy']).toBe('300;w=60, 10000;w=3600');
    await t.http.get(ME).set(bearer(user)).expect('X-RateLimit-Remaining', '298');

    await t.http.get(ME).set(bearer(other)).expect('X-RateLimit-Remaining', '299');

    const mine = await t.http.get(STATUS).set(bearer(user));
    expect(mine.body).toEqual(
      expect.objectContaining({ tier: 'premium', counted_per: 'user', enforced: true }),
    );
    expect(mine.body.windows[0].remaining).toBe(298);
    const address = await t.http.get(STATUS);
    expect(address.body).toEqual(expect.objectContaining({ tier: 'standard', counted_per: 'ip' }));
    expect(address.body.windows.map((w: { remaining: number }) => w.remaining)).toEqual([60, 1000]);
  });

  it("counts each API key in its own bucket at the key's tier, and follows a tier change at once", async () => {
    const user = await createUser(t.http);
    const standard = (await t.http.post(KEYS).set(bearer(user)).send({ name: 'a' }).expect(201)).body;
    const second = (await t.http.post(KEYS).set(bearer(user)).send({ name: 'b' }).expect(201)).body;
    freshHour();
    const withKey = (key: { key: string }) => ({ Authorization: `Bearer ${key.key}` });

    await repeat(3, () => t.http.get(ME).set(withKey(standard)), 200);
    const res = await t.http.get(ME).set(withKey(standard));
    expect(limitHeaders(res)).toEqual(expect.objectContaining({ limit: '60', remaining: '56' }));
    await t.http.get(ME).set(withKey(second)).expect('X-RateLimit-Remaining', '59');
    await t.http.get(ME).set(bearer(user)).expect('X-RateLimit-Remaining', '299');
    const status = await t.http.get(STATUS).set(withKey(standard));
    expect(status.body).toEqual(expect.objectContaining({ tier: 'standard', counted_per: 'api_key' }));

    const fast = (
      await t.http.post(KEYS).set(bearer(root)).send({ name: 'fast', rate_limit_tier: 'premium' }).expect(201)
    ).body;
    await t.http.get(ME).set(withKey(fast)).expect('X-RateLimit-Limit', '300');
    await t.http
      .patch(`${KEYS}/${fast.id}`)
      .set(bearer(root))
      .send({ rate_limit_tier: 'internal' })
      .expect(200);
    const raised = await t.http.get(ME).set(withKey(fast));
    expect(raised.headers['ratelimit-policy']).toBe('1000;w=60, 50000;w=3600');
  });

  it('refuses a key at its limit while its creator, by session, goes on', async () => {
    const user = await createUser(t.http);
    const key = (await t.http.post(KEYS).set(bearer(user)).send({ name: 'busy' }).expect(201)).body;
    freshHour();
    const withKey = { Authorization: `Bearer ${key.key}` };
    await repeat(60, () => t.http.get(ME).set(withKey), 200);
    expectProblem(await t.http.get(ME).set(withKey), 429, /Rate limit exceeded: try again in 60 seconds\./);
    await t.http.get(ME).set(bearer(user)).expect(200);
  });

  it('puts the headers on 403, 404 and 422 answers too', async () => {
    const user = await createUser(t.http);
    freshHour();
    const forbidden = await t.http.get('/api/v1.0/users').set(bearer(user));
    expectProblem(forbidden, 403);
    expect(forbidden.headers['x-ratelimit-remaining']).toBe('299');
    const missing = await t.http.get(`/api/v1.0/users/${randomUUID()}`).set(bearer(user));
    expectProblem(missing, 404);
    expect(missing.headers['x-ratelimit-remaining']).toBe('298');
    const invalid = await t.http.get('/api/v1.0/users/not-a-uuid').set(bearer(user));
    expectProblem(invalid, 422);
    expect(invalid.headers['x-ratelimit-remaining']).toBe('297');
  });

  it('does not count GET /rate-limit, and answers it even to a caller at its limit', async () => {
    freshHour();
    await repeat(5, () => t.http.get(STATUS), 200);
    const status = await t.http.get(STATUS);
    expect(status.body).toEqual({
      tier: 'standard',
      counted_per: 'ip',
      enforced: true,
      windows: [
        expect.objectContaining({ window: 'minute', limit: 60, remaining: 60 }),
        expect.objectContaining({ window: 'hour', limit: 1000, remaining: 1000 }),
      ],
    });
    expect(limitHeaders(status)).toEqual(expect.objectContaining({ limit: '60', remaining: '60' }));

    await repeat(60, () => anonymous(t), 401);
    expectProblem(await anonymous(t), 429);
    const exhausted = await t.http.get(STATUS);
    expect(exhausted.status).toBe(200);
    expect(exhausted.body.windows.map((w: { remaining: number }) => w.remaining)).toEqual([0, 940]);
  });

  it('never limits /health, /metrics, /auth/token and /auth/refresh, which carry no rate-limit headers', async () => {
    const user = await createUser(t.http);
    freshHour();
    await repeat(60, () => anonymous(t), 401);
    expectProblem(await anonymous(t), 429);
    // Registration is not exempt: the address is out of budget.
    expectProblem(
      await t.http.post('/api/v1.0/auth/register').send({ email: 'late@example.test', password: 'x' }),
      429,
    );

    for (let i = 0; i < 3; i++) {
      const health = await t.http.get('/api/v1.0/health');
      expect(health.status).toBe(200);
      expectNoLimitHeaders(health);
      const metrics = await t.http.get('/api/v1.0/metrics');
      expect(metrics.status).toBe(200);
      expectNoLimitHeaders(metrics);
    }
    const token = await t.http
      .post('/api/v1.0/auth/token')
      .type('form')
      .send({ username: user.email, password: user.password });
    expect(token.status).toBe(200);
    expectNoLimitHeaders(token);
    const refreshed = await t.http
      .post('/api/v1.0/auth/refresh')
      .send({ refresh_token: token.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expectNoLimitHeaders(refreshed);
    const wrong = await t.http
      .post('/api/v1.0/auth/token')
      .type('form')
      .send({ username: user.email, password: 'wrong-password' });
    expectProblem(wrong, 401);
    expectNoLimitHeaders(wrong);
  });

  it('documents 429 on limited operations and not on exempt ones', async () => {
    const doc = (await t.http.get('/api/v1.0/openapi.json')).body;
    expect(doc.paths['/api/v1.0/auth/me'].get.responses['429']).toBeDefined();
    expect(doc.paths['/api/v1.0/auth/me'].get.responses['429'].headers).toHaveProperty('Retry-After');
    expect(doc.paths['/api/v1.0/health'].get.responses['429']).toBeUndefined();
    expect(doc.paths['/api/v1.0/auth/token'].post.responses['429']).toBeDefined(); // the sign-in lockout
    expect(doc.paths['/api/v1.0/rate-limit'].get.responses['429']).toBeUndefined();
  });
});

describe('two replicas on one Redis', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    // Replicas share JWT_SECRET; here it also matters because passport's strategy registry is per process.
    const env = {
      RATE_LIMIT_ANON_TIER: 'standard',
      JWT_SECRET: 'replicas-share-one-jwt-secret-0123456789',
      ...redisEnv(),
    };
    a = await startApp({ env });
    b = await startApp({ env });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('share one budget', async () => {
    pinLimiterClock(a, HOUR_START + 20 * HOUR);
    pinLimiterClock(b, HOUR_START + 20 * HOUR);
    for (let i = 1; i <= 60; i++) {
      const res = await anonymous(i % 2 ? a : b);
      expect(res.status).toBe(401);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(60 - i));
    }
    expectProblem(await anonymous(a), 429);
    expectProblem(await anonymous(b), 429);
    const status = await b.http.get(STATUS);
    expect(status.body.windows[1].remaining).toBe(940);
  });

  it('share a user budget across replicas too', async () => {
    pinLimiterClock(a, HOUR_START + 21 * HOUR);
    pinLimiterClock(b, HOUR_START + 21 * HOUR);
    const user = await createUser(a.http);
    const { token } = await login(b.http, user.email, user.password);
    await a.http.get(ME).set(bearer(user)).expect('X-RateLimit-Remaining', '999');
    await b.http.get(ME).set(bearer({ token })).expect('X-RateLimit-Remaining', '998');
  });
});

describe('when Redis is unreachable', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({
      env: {
        RATE_LIMIT_ANON_TIER: 'standard',
        REDIS_URL: 'redis://127.0.0.1:1',
        REDIS_KEY_PREFIX: 'verity-e2e-dead:',
      },
    });
  });
  afterAll(() => t.close());

  it('serves requests without limits (fail open), counts the failures and logs them only now and then', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const started = Date.now();
    const last = await repeat(70, () => anonymous(t), 401);
    // A dead store must not stall requests: no request waits for a connect or command timeout.
    expect(Date.now() - started).toBeLessThan(5_000);
    expectNoLimitHeaders(last);

    const status = await t.http.get(STATUS);
    expect(status.body).toEqual(expect.objectContaining({ enforced: false, counted_per: 'ip' }));
    expect(status.body.windows[0]).toEqual(
      expect.objectContaining({ limit: 60, remaining: null, reset: null }),
    );

    const metrics = await t.http.get('/api/v1.0/metrics');
    const failures = Number(/^rate_limit_store_errors_total (\d+)/m.exec(metrics.text)?.[1]);
    expect(failures).toBeGreaterThanOrEqual(71);
    const logged = warn.mock.calls.filter(([message]) => /Rate-limit counter/.test(String(message)));
    expect(logged.length).toBeLessThanOrEqual(2);
    warn.mockRestore();
  });
});

describe('RATE_LIMIT_ENABLED=false', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ env: { RATE_LIMIT_ANON_TIER: 'standard', RATE_LIMIT_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  it('neither counts nor refuses, and sends no headers', async () => {
    const last = await repeat(65, () => anonymous(t), 401);
    expectNoLimitHeaders(last);
    const status = await t.http.get(STATUS);
    expect(status.body).toEqual(expect.objectContaining({ enforced: false, tier: 'standard' }));
  });
});

// The specification's stricter routes (search, check runs, connector syncs) come with later modules;
// this controller exists only here, to prove @EndpointRateLimit over HTTP.
@Controller('limited')
class LimitedController {
  @Post('search')
  @EndpointRateLimit(3)
  search() {
    return { ok: true };
  }

  @Post('sync')
  @EndpointRateLimit(2)
  sync() {
    return { ok: true };
  }

  @Get('plain')
  plain() {
    return { ok: true };
  }
}

describe('@EndpointRateLimit', () => {
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    const config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-e2e-')),
      LOG_LEVEL: 'error',
      RATE_LIMIT_ANON_TIER: 'standard',
    });
    @Module({
      imports: [ConfigModule.forRoot(config), MetricsModule, RateLimitsModule],
      controllers: [LimitedController],
      providers: [
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
    })
    class LimitedModule {}
    app = await NestFactory.create<NestExpressApplication>(LimitedModule, { logger: ['error'] });
    await app.listen(0, '127.0.0.1');
    http = request(app.getHttpServer());
    jest.spyOn(app.get(Clock), 'now').mockReturnValue(HOUR_START + 30 * HOUR);
  });
  afterAll(() => app.close());

  it('adds a stricter per-route limit on top of the general windows, each route on its own', async () => {
    const first = await http.post('/limited/search');
    expect(first.status).toBe(201);
    // The route's own window is the one closest to running out (2 of 3 left against 59 of 60).
    expect(limitHeaders(first)).toEqual(expect.objectContaining({ limit: '3', remaining: '2' }));
    expect(first.headers['ratelimit-policy']).toBe('60;w=60, 3;w=60, 1000;w=3600');
    await http.post('/limited/search').expect(201);
    await http.post('/limited/search').expect(201).expect('X-RateLimit-Remaining', '0');

    const refused = await http.post('/limited/search');
    expectProblem(refused, 429, /Rate limit exceeded: try again in \d+ seconds?\./);
    expect(limitHeaders(refused)).toEqual(expect.objectContaining({ limit: '3', remaining: '0' }));

    // Other routes are not held back, and the refused request used none of the general budget.
    const plain = await http.get('/limited/plain');
    expect(plain.status).toBe(200);
    expect(limitHeaders(plain)).toEqual(expect.objectContaining({ limit: '60', remaining: '56' }));
    await http.post('/limited/sync').expect(201).expect('X-RateLimit-Limit', '2');
  });
});
