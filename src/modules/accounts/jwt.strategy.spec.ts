import { sign } from 'jsonwebtoken';
import { Strategy } from 'passport-jwt';
import type { AppConfig } from '../../config/app.config';
import { JwtStrategy } from './jwt.strategy';
import type { SessionsService } from './sessions.service';

const SECRET = 'unit-secret-unit-secret-unit-secret-42';
const USER = '0b4f2a44-5f1c-4a35-9d3e-1f0c8e6f2a10';
const SESSION = '7d3c1e2b-9a8f-4b6c-8d5e-2f1a0b9c8d7e';
const NOW = 1_800_000_000_000;

type Outcome = { kind: 'success'; user: unknown } | { kind: 'fail' } | { kind: 'error' };

const requestWith = (token: string) => ({ headers: { authorization: `Bearer ${token}` } }) as never;

/** One authentication as passport runs it: a per-request object over the strategy, with its outcome callbacks. */
function viaPassport(strategy: JwtStrategy, token: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const run = Object.create(strategy) as JwtStrategy;
    run.success = (user: unknown) => resolve({ kind: 'success', user });
    run.fail = () => resolve({ kind: 'fail' });
    run.error = () => resolve({ kind: 'error' });
    run.authenticate(requestWith(token), {});
  });
}

/** One authentication as the global guard runs it: a remembered token through callerOf, any other through passport. */
async function attempt(strategy: JwtStrategy, token: string): Promise<Outcome> {
  const remembered = strategy.callerOf(requestWith(token));
  if (!remembered) return viaPassport(strategy, token);
  const user = await remembered;
  return user ? { kind: 'success', user } : { kind: 'fail' };
}

describe('JwtStrategy', () => {
  let live: boolean;
  let strategy: JwtStrategy;
  let verifications: jest.SpyInstance;
  const token = (claims: object = {}) =>
    sign({ sub: USER, sid: SESSION, typ: 'access', exp: NOW / 1000 + 60, ...claims }, SECRET, {
      algorithm: 'HS256',
      noTimestamp: true,
    });

  beforeEach(() => {
    live = true;
    jest.spyOn(Date, 'now').mockReturnValue(NOW);
    const sessions = {
      resolveActor: async () => (live ? { actor: { userId: USER }, space: null, ownUser: null } : null),
    } as unknown as SessionsService;
    strategy = new JwtStrategy({ jwtSecret: SECRET } as AppConfig, sessions);
    verifications = jest.spyOn(Strategy as unknown as { JwtVerifier: () => void }, 'JwtVerifier');
  });
  afterEach(() => jest.restoreAllMocks());

  it('leaves a token it has not verified, and an API key, to passport', async () => {
    const access = token();
    expect(strategy.callerOf(requestWith(access))).toBeUndefined();
    expect(await viaPassport(strategy, access)).toEqual({ kind: 'success', user: { userId: USER } });
    expect(strategy.callerOf(requestWith(access))).toBeInstanceOf(Promise);
    expect(strategy.callerOf(requestWith(`vk_${'a'.repeat(43)}`))).toBeUndefined();
  });

  it('checks the signature of a token once, and its session on every request', async () => {
    const access = token();
    expect(await attempt(strategy, access)).toEqual({ kind: 'success', user: { userId: USER } });
    expect(await attempt(strategy, access)).toEqual({ kind: 'success', user: { userId: USER } });
    expect(verifications).toHaveBeenCalledTimes(1);
    live = false;
    expect(await attempt(strategy, access)).toEqual({ kind: 'fail' });
  });

  it('refuses a remembered token from the second it expires', async () => {
    const access = token();
    expect((await attempt(strategy, access)).kind).toBe('success');
    jest.spyOn(Date, 'now').mockReturnValue(NOW + 59_999);
    expect((await attempt(strategy, access)).kind).toBe('success');
    jest.spyOn(Date, 'now').mockReturnValue(NOW + 60_000);
    expect(await attempt(strategy, access)).toEqual({ kind: 'fail' });
  });

  it('never takes a token with another signature for a remembered one', async () => {
    const access = token();
    expect((await attempt(strategy, access)).kind).toBe('success');
    const forged = `${access.slice(0, access.lastIndexOf('.') + 1)}${'A'.repeat(43)}`;
    expect(await attempt(strategy, forged)).toEqual({ kind: 'fail' });
    const otherSecret = sign(
      { sub: USER, sid: SESSION, typ: 'access', exp: NOW / 1000 + 60 },
      'x'.repeat(40),
    );
    expect(await attempt(strategy, otherSecret)).toEqual({ kind: 'fail' });
  });

  it('verifies every time a token that is not valid before a time', async () => {
    const access = token({ nbf: NOW / 1000 - 1 });
    expect((await attempt(strategy, access)).kind).toBe('success');
    expect((await attempt(strategy, access)).kind).toBe('success');
    expect(verifications).toHaveBeenCalledTimes(2);
  });
});
