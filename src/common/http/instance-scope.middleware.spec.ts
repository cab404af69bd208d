import type { Request } from 'express';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import { mayReachAnotherInstance } from './instance-scope.middleware';

const withAuthorization = (authorization?: string) =>
  ({ headers: authorization === undefined ? {} : { authorization } }) as Request;
const jwt = (claims: object) =>
  `Bearer eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.signature`;

describe('mayReachAnotherInstance', () => {
  it('opens no scope for anonymous requests and tokens of `default`', () => {
    expect(mayReachAnotherInstance(withAuthorization())).toBe(false);
    expect(mayReachAnotherInstance(withAuthorization(jwt({ sub: 'u', ins: DEFAULT_INSTANCE_ID })))).toBe(
      false,
    );
    // Tokens from before instances existed reach `default`.
    expect(mayReachAnotherInstance(withAuthorization(jwt({ sub: 'u' })))).toBe(false);
  });

  it('opens one for a token naming another instance, whatever the scheme spelling', () => {
    const other = jwt({ sub: 'u', ins: '5b0c5b4e-8f7a-4f4e-9d0e-3c2a1b0f9e8d' });
    expect(mayReachAnotherInstance(withAuthorization(other))).toBe(true);
    expect(mayReachAnotherInstance(withAuthorization(other.replace('Bearer', 'bearer')))).toBe(true);
    // Any other value: authentication decides, inside a scope.
    expect(mayReachAnotherInstance(withAuthorization(jwt({ ins: 42 })))).toBe(true);
  });

  it('opens one for every API key, whose instance is known only after its lookup', () => {
    expect(mayReachAnotherInstance(withAuthorization('Bearer vk_abc123'))).toBe(true);
  });

  it('leaves what is no bearer JWT to authentication', () => {
    for (const header of [
      'Basic dXNlcjpwYXNz',
      'Bearer not-a-jwt',
      'Bearer a.%%%.c',
      'Bearer a.bnVsbA.c',
      'Bearer',
    ]) {
      expect(mayReachAnotherInstance(withAuthorization(header))).toBe(false);
    }
  });
});
