import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
    expect(config.connectorPoolSize).toBe(2);
  });

  it('keeps generated secrets across boots', () => {
    const first = loadConfig(base);
    const second = loadConfig(base);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ CONNECTOR_POOL_SIZE: '11' }, /CONNECTOR_POOL_SIZE must be a whole number from 1 to 10/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must use postgres:/],
    [{ REGISTRATION_OPEN: 'maybe' }, /REGISTRATION_OPEN must be true or false/],
    [{ RATE_LIMIT_USER_TIER: 'gold' }, /RATE_LIMIT_USER_TIER must be one of standard, premium, internal/],
    [{ RATE_LIMIT_ENABLED: 'sometimes' }, /RATE_LIMIT_ENABLED must be true or false/],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, /REDIS_URL must use redis: or rediss:/],
    [{ REDIS_KEY_PREFIX: 'has space' }, /REDIS_KEY_PREFIX must be 1 to 100/],
    [{ ENCRYPTION_KEY: 'c2hvcnQ=' }, /ENCRYPTION_KEY must be 32 bytes/],
    [{ JWT_SECRET: 'short' }, /JWT_SECRET must be at least 32 characters/],
    [{ STORAGE_BACKEND: 'ftp' }, /STORAGE_BACKEND must be one of local, s3/],
    [{ STORAGE_BACKEND: 's3' }, /S3_BUCKET is required when STORAGE_BACKEND is s3/],
    [{ S3_BUCKET: 'Not_A_Bucket' }, /S3_BUCKET must be a bucket name/],
    [{ S3_ENDPOINT: 'ftp://store' }, /S3_ENDPOINT must use http: or https:/],
    [{ S3_REGION: 'EU West' }, /S3_REGION must be a region name/],
    [{ S3_ACCESS_KEY_ID: 'only-the-id' }, /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together/],
    [{ S3_FORCE_PATH_STYLE: 'perhaps' }, /S3_FORCE_PATH_STYLE must be true or false/],
    [
      { ATTACHMENT_LINK_TTL_SECONDS: '0' },
      /ATTACHMENT_LINK_TTL_SECONDS must be a whole number from 1 to 604800/,
    ],
    [
      { LOG_LEVEL: 'loud' },
      /LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, log, verbose/,
    ],
    [{ LOG_FORMAT: 'xml' }, /LOG_FORMAT must be one of json, pretty/],
    [{ ACCESS_LOG: 'often' }, /ACCESS_LOG must be true or false/],
    [{ CORS_ORIGINS: '*' }, /CORS_ORIGINS must be a comma-separated list of exact origins/],
    [
      { CORS_ORIGINS: 'https://app.example.com/' },
      /CORS_ORIGINS must be .* got "https:\/\/app.example.com\/"/,
    ],
    [
      { CORS_ORIGINS: 'https://ok.example.com,app.example.com' },
      /CORS_ORIGINS must be .* got "app.example.com"/,
    ],
    [{ CORS_ORIGINS: 'https://app.example.com/spa' }, /CORS_ORIGINS must be/],
    [
      { REFRESH_COOKIE_SAMESITE: 'None' },
      /REFRESH_COOKIE_SAMESITE must be one of strict, lax, none, got "None"/,
    ],
    [{ REFRESH_COOKIE_SAMESITE: 'off' }, /REFRESH_COOKIE_SAMESITE must be one of strict, lax, none/],
    [{ TRUST_PROXY: 'true' }, /TRUST_PROXY must be false, a hop count, or a comma-separated list/],
    [{ TRUST_PROXY: '10.0.0.0/8, not-an-address' }, /TRUST_PROXY must be .* got "not-an-address"/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY must be/],
    [{ TRUST_PROXY: '99' }, /TRUST_PROXY must be a hop count from 0 to 32/],
  ])('rejects %o with a sentence naming the variable', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('stores attachments locally unless told otherwise', () => {
    const config = loadConfig(base);
    expect(config.storageBackend).toBe('local');
    expect(config.s3).toBeNull();
    expect(config.attachmentLinkTtlSeconds).toBe(900);
  });

  it('reads the S3 settings for the s3 backend', () => {
    const config = loadConfig({
      ...base,
      STORAGE_BACKEND: 's3',
      S3_ENDPOINT: 'http://127.0.0.1:9000/',
      S3_REGION: 'eu-west-1',
      S3_BUCKET: 'verity-attachments',
      S3_ACCESS_KEY_ID: 'key',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'true',
    });
    expect(config.s3).toEqual({
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      bucket: 'verity-attachments',
      credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
      forcePathStyle: true,
    });
  });

  it('reads the logging settings, json by default in production or off a terminal', () => {
    expect(loadConfig(base, true)).toEqual(
      expect.objectContaining({ logLevel: 'info', logFormat: 'pretty', accessLog: true }),
    );
    expect(loadConfig(base, false).logFormat).toBe('json');
    expect(loadConfig({ ...base, NODE_ENV: 'production' }, true).logFormat).toBe('json');
    expect(loadConfig({ ...base, LOG_FORMAT: 'pretty' }, false).logFormat).toBe('pretty');
    expect(loadConfig({ ...base, LOG_LEVEL: 'verbose', ACCESS_LOG: 'false' })).toEqual(
      expect.objectContaining({ logLevel: 'verbose', accessLog: false }),
    );
  });

  it('reads CORS origins as exact origins, and none by default', () => {
    expect(loadConfig(base).corsOrigins).toEqual([]);
    expect(
      loadConfig({
        ...base,
        CORS_ORIGINS: 'https://App.Example.com, http://localhost:5173,https://x.test:443',
      }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173', 'https://x.test']);
  });

  it('reads REFRESH_COOKIE_SAMESITE as strict by default, or lax or none', () => {
    expect(loadConfig(base).refreshCookieSameSite).toBe('strict');
    for (const value of ['strict', 'lax', 'none'] as const) {
      expect(loadConfig({ ...base, REFRESH_COOKIE_SAMESITE: value }).refreshCookieSameSite).toBe(value);
    }
  });

  it('reads TRUST_PROXY as off, a hop count or a list of addresses and CIDRs', () => {
    expect(loadConfig(base).trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(
      loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,loopback, fd00::/8' }).trustProxy,
    ).toEqual(['10.0.0.0/8', '192.168.1.7', 'loopback', 'fd00::/8']);
  });

  it('uses a pool for a real database', () => {
    const config = loadConfig({ ...base, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/verity' });
    expect(config.databasePoolSize).toBe(10);
  });

  it('limits tool providers as docs/decisions.md#provider-processes says unless told otherwise, never beyond 20 s for discovery', () => {
    expect(loadConfig({ ...base, PATH: '/usr/bin:/bin' }).toolProviders).toEqual({
      discoveryTimeoutMs: 20_000,
      callTimeoutMs: 30_000,
      healthTimeoutMs: 5_000,
      sessionIdleMs: 300_000,
      path: '/usr/bin:/bin',
    });
    expect(loadConfig({ ...base, TOOL_DISCOVERY_TIMEOUT_MS: '5000' }).toolProviders.discoveryTimeoutMs).toBe(
      5000,
    );
    expect(() => loadConfig({ ...base, TOOL_DISCOVERY_TIMEOUT_MS: '30000' })).toThrow(ConfigError);
  });

  it('defaults embeddings to the local hashing embedder, with per-provider models and sizes', () => {
    expect(loadConfig(base).embeddings).toEqual({
      provider: 'local',
      model: 'hashing-ngram-v1',
      dimensions: 384,
      localModelsDir: null,
      apiKey: null,
      apiBaseUrl: null,
      enabled: true,
      indexVersion: 'v1',
      batchSize: 64,
    });
    const cohere = loadConfig({
      ...base,
      EMBEDDING_PROVIDER: 'cohere',
      EMBEDDING_API_BASE_URL: 'https://c.example.com/',
    });
    expect(cohere.embeddings).toMatchObject({
      model: 'embed-v4.0',
      dimensions: 1024,
      apiBaseUrl: 'https://c.example.com',
    });
    expect(() => loadConfig({ ...base, EMBEDDING_PROVIDER: 'word2vec' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, EMBEDDING_DIMENSIONS: '4096' })).toThrow(/EMBEDDING_DIMENSIONS/);
    expect(() => loadConfig({ ...base, EMBEDDING_ENABLED: 'maybe' })).toThrow(/EMBEDDING_ENABLED/);
  });

  it('names a local model directory under EMBEDDING_LOCAL_MODELS_DIR, its size left to the model unless set', () => {
    const models = { ...base, EMBEDDING_LOCAL_MODELS_DIR: '/srv/models' };
    expect(loadConfig(models).embeddings).toMatchObject({
      localModelsDir: '/srv/models',
      model: 'hashing-ngram-v1',
      dimensions: 384,
    });
    expect(loadConfig({ ...base, EMBEDDING_LOCAL_MODELS_DIR: 'models' }).embeddings.localModelsDir).toBe(
      resolve(process.cwd(), 'models'),
    );
    expect(loadConfig({ ...models, EMBEDDING_MODEL: 'potion-base-8M' }).embeddings).toMatchObject({
      model: 'potion-base-8M',
      dimensions: null,
    });
    expect(
      loadConfig({ ...models, EMBEDDING_MODEL: 'potion-base-8M', EMBEDDING_DIMENSIONS: '256' }).embeddings
        .dimensions,
    ).toBe(256);
    // Hosted providers name their own models; the directory rule is the local provider's.
    expect(
      loadConfig({ ...base, EMBEDDING_PROVIDER: 'openai', EMBEDDING_MODEL: 'text-embedding-3-large' })
        .embeddings.model,
    ).toBe('text-embedding-3-large');
    expect(() => loadConfig({ ...base, EMBEDDING_MODEL: 'potion-base-8M' })).toThrow(
      /set EMBEDDING_LOCAL_MODELS_DIR/,
    );
    for (const name of ['../etc', 'a/b', '/srv/models/x', '.hidden', '..']) {
      expect(() => loadConfig({ ...models, EMBEDDING_MODEL: name })).toThrow(/not a plain directory name/);
    }
  });
});
