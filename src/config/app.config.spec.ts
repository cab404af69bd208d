import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './app.config';

describe('loadConfig', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'verity-config-'));
  const base = { DATA_DIR: dataDir };

  it('applies the documented defaults', () => {
    const config = loadConfig(base);
    expect(config.port).toBe(8000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.databaseUrl).toBeNull();
    expect(config.databasePoolSize).toBe(1);
    expect(config.rateLimitUserTier).toBe('premium');
    expect(config.rateLimitAnonTier).toBe('standard');
    expect(config.rateLimitEnabled).toBe(true);
    expect(config.redisUrl).toBeNull();
    expect(config.redisKeyPrefix).toBe('verity:');
    expect(config.registrationOpen).toBe(true);
    expect(config.encryptionKey).toHaveLength(32);
  });

  it('keeps generated secrets across boots', () => {
    const first = loadConfig(base);
    const second = loadConfig(base);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must use postgres:/],
    [{ REGISTRATION_OPEN: 'maybe' }, /REGISTRATION_OPEN must be true or false/],
    [{ RATE_LIMIT_USER_TIER: 'gold' }, /RATE_LIMIT_USER_TIER must be one of standard, premium, internal/],
    [{ RATE_LIMIT_ENABLED: 'sometimes' }, /RATE_LIMIT_ENABLED must be true or false/],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, /REDIS_URL must use redis: or rediss:/],
    [{ REDIS_KEY_PREFIX: 'has space' }, /REDIS_KEY_PREFIX must be 1 to 100/],
    [{ ENCRYPTION_KEY: 'c2hvcnQ=' }, /ENCRYPTION_KEY must be 32 bytes/],
    [{ JWT_SECRET: 'short' }, /JWT_SECRET must be at least 32 characters/],
  ])('rejects %o with a sentence naming the variable', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('uses a pool for a real database', () => {
    const config = loadConfig({ ...base, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/verity' });
    expect(config.databasePoolSize).toBe(10);
  });
});
