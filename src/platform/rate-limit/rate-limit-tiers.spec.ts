import type { Actor } from '../../common/auth/actor';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import { subjectOf, TIER_LIMITS } from './rate-limit-tiers';

const config = { rateLimitUserTier: 'premium', rateLimitAnonTier: 'standard' } as const;
const actor = (overrides: Partial<Actor> = {}): Actor => ({
  userId: 'u1',
  email: 'a@example.test',
  isSuperadmin: false,
  sessionId: 's1',
  apiKeyId: null,
  apiKeyTier: null,
  impersonatorId: null,
  instanceId: DEFAULT_INSTANCE_ID,
  ...overrides,
});

describe('subjectOf', () => {
  it('counts an API key per key at its own tier', () => {
    expect(
      subjectOf(actor({ sessionId: null, apiKeyId: 'k1', apiKeyTier: 'internal' }), '10.0.0.1', config),
    ).toEqual({
      kind: 'api_key',
      tracker: 'api-key:k1',
      tier: 'internal',
    });
  });

  it('counts a signed-in user per user at RATE_LIMIT_USER_TIER', () => {
    expect(subjectOf(actor(), '10.0.0.1', config)).toEqual({
      kind: 'user',
      tracker: 'user:u1',
      tier: 'premium',
    });
    expect(subjectOf(actor({ impersonatorId: 'root' }), '10.0.0.1', config).tracker).toBe('user:u1');
  });

  it('counts anonymous callers per address at RATE_LIMIT_ANON_TIER, IPv6 per /64', () => {
    expect(subjectOf(undefined, '10.0.0.1', config)).toEqual({
      kind: 'ip',
      tracker: 'ip:10.0.0.1',
      tier: 'standard',
    });
    expect(subjectOf(undefined, '::ffff:10.0.0.1', config).tracker).toBe('ip:10.0.0.1');
    expect(subjectOf(undefined, '2001:db8:1:2:3:4:5:6', config).tracker).toBe(
      subjectOf(undefined, '2001:db8:1:2:ffff::1', config).tracker,
    );
  });

  it("follows the specification's tier table", () => {
    expect(TIER_LIMITS).toEqual({
      standard: { minute: 60, hour: 1000 },
      premium: { minute: 300, hour: 10000 },
      internal: { minute: 1000, hour: 50000 },
    });
  });
});
