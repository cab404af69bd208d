import type { Request, Response } from 'express';
import { InstanceContext } from '../../database/instance-context';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import { instanceScopeMiddleware, tokenNamesAnotherInstance } from './instance-scope.middleware';

const OTHER_INSTANCE = '5b0c5b4e-8f7a-4f4e-9d0e-3c2a1b0f9e8d';
const jwt = (claims: object) =>
  `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.signature`;
const API_KEY = `vk_${'a'.repeat(43)}`;

describe('tokenNamesAnotherInstance', () => {
  it('is false for tokens of `default`, and for tokens from before instances existed', () => {
    expect(tokenNamesAnotherInstance(jwt({ sub: 'u', ins: DEFAULT_INSTANCE_ID }))).toBe(false);
    expect(tokenNamesAnotherInstance(jwt({ sub: 'u' }))).toBe(false);
  });

  it('is true for a token naming another instance, or anything else under `ins`', () => {
    expect(tokenNamesAnotherInstance(jwt({ sub: 'u', ins: OTHER_INSTANCE }))).toBe(true);
    expect(tokenNamesAnotherInstance(jwt({ ins: 42 }))).toBe(true);
  });

  it('leaves what is no JWT to authentication', () => {
    for (const token of ['not-a-jwt', 'a.%%%.c', 'a.bnVsbA.c', ''])
      expect(tokenNamesAnotherInstance(token)).toBe(false);
  });
});

describe('instanceScopeMiddleware', () => {
  const keyInstances = new Map<string, string>([[API_KEY, DEFAULT_INSTANCE_ID]]);
  let lookups = 0;
  let lookupFails = false;
  const middleware = instanceScopeMiddleware((secret) => {
    lookups++;
    return lookupFails
      ? Promise.reject(new Error('down'))
      : Promise.resolve(keyInstances.get(secret) ?? null);
  });

  /** Whether the rest of the chain runs inside a request scope. */
  const scopedFor = (authorization?: string) =>
    new Promise<boolean>((resolve) => {
      const request = { headers: authorization === undefined ? {} : { authorization } } as Request;
      middleware(request, {} as Response, () => resolve(InstanceContext.current() !== undefined));
    });

  beforeEach(() => {
    lookups = 0;
    lookupFails = false;
  });

  it('serves anonymous requests and tokens of `default` outside any scope, without a lookup', async () => {
    expect(await scopedFor()).toBe(false);
    expect(await scopedFor(`Bearer ${jwt({ sub: 'u', ins: DEFAULT_INSTANCE_ID })}`)).toBe(false);
    expect(await scopedFor('Basic dXNlcjpwYXNz')).toBe(false);
    expect(lookups).toBe(0);
  });

  it('opens a scope for a token naming another instance, whatever the scheme spelling', async () => {
    expect(await scopedFor(`bearer ${jwt({ sub: 'u', ins: OTHER_INSTANCE })}`)).toBe(true);
  });

  it("looks an API key's instance up: a scope for another instance's key only", async () => {
    expect(await scopedFor(`Bearer ${API_KEY}`)).toBe(false);
    keyInstances.set(API_KEY, OTHER_INSTANCE);
    expect(await scopedFor(`Bearer ${API_KEY}`)).toBe(true);
    keyInstances.delete(API_KEY);
    expect(await scopedFor(`Bearer ${API_KEY}`)).toBe(false);
    expect(lookups).toBe(3);
  });

  it('opens a scope when the lookup fails, so that authentication decides', async () => {
    lookupFails = true;
    expect(await scopedFor(`Bearer ${API_KEY}`)).toBe(true);
  });
});
