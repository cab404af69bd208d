import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';

export const RATE_LIMIT_TIERS = ['standard', 'premium', 'internal'] as const;
export type RateLimitTier = (typeof RATE_LIMIT_TIERS)[number];

/** Operators' names (pino's) and Nest's own (`log` = info, `verbose` = trace). */
export const LOG_LEVELS = [
  'trace',
  'debug',
  'info',
  'warn',
  'error',
  'fatal',
  'silent',
  'log',
  'verbose',
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Express's `trust proxy`: off, the number of proxy hops in front, or the proxies' addresses and CIDRs. */
export type TrustProxy = false | number | string[];

/** Everything the service reads from its environment, typed and validated once at boot. */
export interface AppConfig {
  port: number;
  host: string;
  /** A postgres:// URL; null means the embedded PGlite database under `dataDir`. */
  databaseUrl: string | null;
  /** Connections in the pool; always 1 on the embedded database. */
  databasePoolSize: number;
  /**
   * INSTANCE_DATABASE_POOL_SIZE: connections in the pool of each instance
   * other than `default`, per worker process (default 4). The budget on one
   * PostgreSQL server is workers x (DATABASE_POOL_SIZE + instances x this).
   */
  instanceDatabasePoolSize: number;
  /**
   * CONNECTOR_POOL_SIZE: warm read-only connections each worker process
   * keeps to each connector's source database (visual query, quality checks).
   */
  connectorPoolSize: number;
  /**
   * Worker processes sharing the port (WEB_CONCURRENCY): by default one per
   * available core on PostgreSQL, and always 1 on the embedded database,
   * which serves a single process.
   */
  webConcurrency: number;
  /**
   * SEARCH_CACHE_ITEMS: how many search result items (an answer weighs its
   * items, plus one) each worker process keeps (default 20,000: 20 to 40 MB;
   * 0 turns the cache off). An answer is served again only while nothing it
   * is made of has changed (SearchCache).
   */
  searchCacheItems: number;
  /**
   * SEARCH_EXACT_TOTAL_UP_TO: search counts matches exactly up to this many
   * (default 10,000); beyond, `total` is this number with `total_relation`
   * `gte` (Elasticsearch's `track_total_hits` convention).
   */
  searchExactTotalUpTo: number;
  dataDir: string;
  redisUrl: string | null;
  /** Prepended to every Redis key, so that deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  jwtSecret: string;
  /** 32 bytes for AES-256-GCM. */
  encryptionKey: Buffer;
  smtpUrl: string | null;
  mailFrom: string;
  publicBaseUrl: string;
  registrationOpen: boolean;
  rateLimitUserTier: RateLimitTier;
  rateLimitAnonTier: RateLimitTier;
  /**
   * RATE_LIMIT_ENABLED=false turns the general rate limits off (no counting,
   * no headers): for a deployment that limits at its gateway, and for the
   * benchmark's baseline. On by default.
   */
  rateLimitEnabled: boolean;
  metricsToken: string | null;
  storageBackend: 'local' | 's3';
  /** The S3-compatible object store; set exactly when `storageBackend` is `s3`. */
  s3: S3Config | null;
  /** Lifetime of a signed attachment download link (ATTACHMENT_LINK_TTL_SECONDS, default 15 minutes). */
  attachmentLinkTtlSeconds: number;
  logLevel: LogLevel;
  /** json: one object per line (the default in production and when stdout is not a terminal); pretty: for people. */
  logFormat: LogFormat;
  /** One info line per request (ACCESS_LOG, default true). */
  accessLog: boolean;
  /** Exact origins allowed to call the API from a browser (CORS_ORIGINS); empty: no cross-origin access. */
  corsOrigins: string[];
  /**
   * REFRESH_COOKIE_SAMESITE: the refresh cookie's SameSite attribute. `none`
   * lets a browser app on another site use the cookie; the cookie is then
   * always Secure, since browsers drop a SameSite=None cookie that is not,
   * and Partitioned, which browsers blocking third-party cookies accept.
   */
  refreshCookieSameSite: RefreshCookieSameSite;
  trustProxy: TrustProxy;
  allowPrivateNetworkTargets: boolean;
  /**
   * JOB_LEASE_SECONDS: how long a claimed job stays reserved without a
   * heartbeat. Renewed every third of it while the job runs, so a dead
   * worker's jobs are taken over within one lease (default 30 s).
   */
  jobLeaseSeconds: number;
  /** OPENLINEAGE_RETENTION_DAYS: raw OpenLineage events older than this are removed (default 30). */
  openLineageRetentionDays: number;
  /** The AI gateway's environment defaults (docs/decisions.md#ai-gateway). */
  ai: AiEnvConfig;
  /** Limits on external tool providers' processes (docs/decisions.md#provider-processes). */
  toolProviders: ToolProviderLimits;
  /** The embedding configuration's environment defaults (docs/decisions.md#embeddings). */
  embeddings: EmbeddingEnvConfig;
}

/** How long MCP tool-provider processes get; the defaults are the documented limits. */
export interface ToolProviderLimits {
  /** TOOL_DISCOVERY_TIMEOUT_MS: start, handshake and every tools/list page (at most and by default 20 s). */
  discoveryTimeoutMs: number;
  /** TOOL_CALL_TIMEOUT_MS: one tool call on a warm session (default 30 s). */
  callTimeoutMs: number;
  /** TOOL_HEALTH_TIMEOUT_MS: the readiness health probe (default 5 s). */
  healthTimeoutMs: number;
  /** TOOL_SESSION_IDLE_MS: a warm session unused this long is stopped (default 5 minutes). */
  sessionIdleMs: number;
  /** The service's own PATH, the one inherited variable a provider's process gets. */
  path: string;
}

export const EMBEDDING_ENV_PROVIDERS = ['local', 'openai', 'azure_openai', 'cohere', 'voyage'] as const;
export type EmbeddingEnvProvider = (typeof EMBEDDING_ENV_PROVIDERS)[number];

/**
 * The embedding configuration in force when none is stored (its `source` is
 * then `environment`): by default the built-in local hashing embedder, which
 * needs no network.
 */
export interface EmbeddingEnvConfig {
  /** EMBEDDING_PROVIDER (default `local`). */
  provider: EmbeddingEnvProvider;
  /**
   * EMBEDDING_MODEL (default per provider, `hashing-ngram-v1` for local). For
   * `local`, either the built-in hashing model or the name of a model
   * directory under `localModelsDir`.
   */
  model: string;
  /**
   * EMBEDDING_DIMENSIONS (default 384 for the built-in local model, the
   * model's usual size for hosted ones); null for a local model directory
   * when unset: the model's own size, read at start.
   */
  dimensions: number | null;
  /**
   * EMBEDDING_LOCAL_MODELS_DIR (unset by default: only the built-in hashing
   * model): the directory whose subdirectories hold Model2Vec models
   * (`config.json`, `tokenizer.json`, `model.safetensors`) the local provider
   * may load by name.
   */
  localModelsDir: string | null;
  apiKey: string | null;
  apiBaseUrl: string | null;
  /** EMBEDDING_ENABLED (default true): false turns semantic indexing and search off. */
  enabled: boolean;
  /** EMBEDDING_INDEX_VERSION (default `v1`). */
  indexVersion: string;
  /** EMBEDDING_BATCH_SIZE: texts per hosted provider request (default 64; the local embedder takes 256). */
  batchSize: number;
}

/**
 * AI settings read from the environment. `provider` and `model` make the
 * effective provider configuration when no database configuration exists
 * (its `source` is then `environment`).
 */
export interface AiEnvConfig {
  provider: 'openai' | 'azure_openai' | 'anthropic' | 'openai_compatible' | null;
  model: string | null;
  apiKey: string | null;
  apiBaseUrl: string | null;
  /**
   * TRUSTED_AI_HOSTS: host names or addresses an AI or embedding base URL may
   * point at over http or on a private address (an internal gateway, a
   * self-hosted model server). Nothing else relaxes the public-HTTPS rule.
   */
  trustedHosts: string[];
  /** AI_REQUEST_TIMEOUT_MS: how long one provider request may take (default 30 s). */
  requestTimeoutMs: number;
  /** AI_MAX_RETRIES: retries of a 429/5xx/connection failure (default 2). */
  maxRetries: number;
  /** AI_RETRY_MAX_WAIT_MS: the longest wait between retries, Retry-After included (default 5 s). */
  retryMaxWaitMs: number;
  /** AI_LOG_RETENTION_DAYS: AI logs and workflow runs older than this are removed (default 90). */
  logRetentionDays: number;
  /** Global budget defaults (AI_BUDGET_DAILY_TOKENS, …); null means no limit. */
  budget: {
    dailyTokens: number | null;
    monthlyTokens: number | null;
    dailyUsd: number | null;
    monthlyUsd: number | null;
  };
}

/** Where attachments live with `STORAGE_BACKEND=s3` (AWS S3 or any S3-compatible store). */
export interface S3Config {
  /** S3_ENDPOINT: the store's URL; null means AWS S3 itself for `region`. */
  endpoint: string | null;
  region: string;
  bucket: string;
  /** S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, set together; null means the SDK's default credential chain. */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  /** Path-style URLs (`endpoint/bucket/key`), which most self-hosted stores need. */
  forcePathStyle: boolean;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}".`);
  }
  return Number(raw);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}".`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}".`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')}), got an unparseable value.`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}".`);
  }
  return raw;
}

function redisKeyPrefix(env: Env): string {
  const raw = read(env, 'REDIS_KEY_PREFIX') ?? 'verity:';
  if (!/^[A-Za-z0-9:._-]{1,100}$/.test(raw)) {
    throw new ConfigError(
      `REDIS_KEY_PREFIX must be 1 to 100 letters, digits or ":._-" characters, got "${raw}".`,
    );
  }
  return raw;
}

/**
 * A secret the operator may leave unset: generated once and kept in the data
 * directory, so restarts keep tokens and encrypted values valid.
 */
function persistedSecret(dataDir: string, fileName: string, bytes: number): string {
  const path = join(dataDir, fileName);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(bytes).toString('base64');
  writeFileSync(path, secret, { mode: 0o600 });
  return secret;
}

function encryptionKey(env: Env, dataDir: string): Buffer {
  const raw = read(env, 'ENCRYPTION_KEY') ?? persistedSecret(dataDir, 'encryption.key', 32);
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError('ENCRYPTION_KEY must be 32 bytes, written as 64 hex characters or base64.');
  }
  return key;
}

const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function s3Config(env: Env, backend: 'local' | 's3'): S3Config | null {
  // Validated whenever given, so a typo fails the boot even before the backend is switched.
  const endpoint = url(env, 'S3_ENDPOINT', ['http:', 'https:']);
  const region = read(env, 'S3_REGION') ?? 'us-east-1';
  if (!/^[a-z0-9-]{2,40}$/.test(region)) {
    throw new ConfigError(`S3_REGION must be a region name such as us-east-1, got "${region}".`);
  }
  const bucket = read(env, 'S3_BUCKET');
  if (bucket !== undefined && !S3_BUCKET.test(bucket)) {
    throw new ConfigError(
      `S3_BUCKET must be a bucket name (3 to 63 lowercase letters, digits, dots or hyphens), got "${bucket}".`,
    );
  }
  const accessKeyId = read(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = read(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together.');
  }
  const forcePathStyle = boolean(env, 'S3_FORCE_PATH_STYLE', false);
  if (backend !== 's3') return null;
  if (bucket === undefined) throw new ConfigError('S3_BUCKET is required when STORAGE_BACKEND is s3.');
  return {
    endpoint: endpoint?.replace(/\/+$/, '') ?? null,
    region,
    bucket,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : null,
    forcePathStyle,
  };
}

const MAX_WORKERS = 64;

function webConcurrency(env: Env, databaseUrl: string | null): number {
  const workers = integer(env, 'WEB_CONCURRENCY', databaseUrl ? availableParallelism() : 1, 1, MAX_WORKERS);
  if (!databaseUrl && workers > 1) {
    throw new ConfigError(
      `WEB_CONCURRENCY must be 1 on the embedded database, which serves one process, got "${workers}"; set DATABASE_URL to run several workers.`,
    );
  }
  return Math.min(workers, MAX_WORKERS);
}

export const REFRESH_COOKIE_SAMESITE_VALUES = ['strict', 'lax', 'none'] as const;
export type RefreshCookieSameSite = (typeof REFRESH_COOKIE_SAMESITE_VALUES)[number];

function corsOrigins(env: Env): string[] {
  const raw = read(env, 'CORS_ORIGINS');
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      let parsed: URL | null = null;
      try {
        parsed = new URL(entry);
      } catch {
        // reported below
      }
      if (
        !parsed ||
        !['http:', 'https:'].includes(parsed.protocol) ||
        parsed.pathname !== '/' ||
        parsed.search ||
        parsed.hash ||
        parsed.username ||
        /\/$/.test(entry)
      ) {
        throw new ConfigError(
          `CORS_ORIGINS must be a comma-separated list of exact origins such as https://app.example.com (scheme, host and optional port, no path or wildcard), got "${entry}".`,
        );
      }
      return parsed.origin;
    });
}

// Express's (proxy-addr's) names for address ranges.
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function proxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0 || !ipaddr.isValid(address)) return false;
  if (bits === undefined) return true;
  const max = ipaddr.parse(address).kind() === 'ipv4' ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

function trustProxy(env: Env): TrustProxy {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || ['false', '0', 'no'].includes(raw.toLowerCase())) return false;
  if (/^\d+$/.test(raw)) {
    if (Number(raw) > 32)
      throw new ConfigError(`TRUST_PROXY must be a hop count from 0 to 32, got "${raw}".`);
    return Number(raw);
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !proxyAddress(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY must be false, a hop count, or a comma-separated list of proxy addresses or CIDRs (or loopback, linklocal, uniquelocal), got "${bad}".`,
    );
  }
  return entries;
}

const AI_PROVIDERS = ['openai', 'azure_openai', 'anthropic', 'openai_compatible'] as const;

function optionalInteger(env: Env, name: string): number | null {
  return read(env, name) === undefined ? null : integer(env, name, 0, 0, Number.MAX_SAFE_INTEGER);
}

function optionalUsd(env: Env, name: string): number | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  if (!/^\d+(\.\d+)?$/.test(raw))
    throw new ConfigError(`${name} must be an amount in USD such as 25.50, got "${raw}".`);
  return Number(raw);
}

function trustedHosts(env: Env): string[] {
  const raw = read(env, 'TRUSTED_AI_HOSTS');
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((entry) =>
      entry
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, ''),
    )
    .filter((entry) => entry !== '')
    .map((entry) => {
      if (
        !ipaddr.isValid(entry) &&
        !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)
      ) {
        throw new ConfigError(`TRUSTED_AI_HOSTS must list host names or IP addresses, got "${entry}".`);
      }
      return entry;
    });
}

function aiConfig(env: Env): AiEnvConfig {
  const provider =
    read(env, 'AI_PROVIDER') === undefined ? null : oneOf(env, 'AI_PROVIDER', AI_PROVIDERS, 'openai');
  return {
    provider,
    model: read(env, 'AI_MODEL') ?? null,
    apiKey: read(env, 'AI_API_KEY') ?? null,
    apiBaseUrl: url(env, 'AI_API_BASE_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null,
    trustedHosts: trustedHosts(env),
    requestTimeoutMs: integer(env, 'AI_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    maxRetries: integer(env, 'AI_MAX_RETRIES', 2, 0, 10),
    retryMaxWaitMs: integer(env, 'AI_RETRY_MAX_WAIT_MS', 5_000, 0, 60_000),
    logRetentionDays: integer(env, 'AI_LOG_RETENTION_DAYS', 90, 1, 3650),
    budget: {
      dailyTokens: optionalInteger(env, 'AI_BUDGET_DAILY_TOKENS'),
      monthlyTokens: optionalInteger(env, 'AI_BUDGET_MONTHLY_TOKENS'),
      dailyUsd: optionalUsd(env, 'AI_BUDGET_DAILY_USD'),
      monthlyUsd: optionalUsd(env, 'AI_BUDGET_MONTHLY_USD'),
    },
  };
}

/** The local provider's built-in model: the hashing embedder, which needs no files. */
export const LOCAL_HASHING_MODEL = 'hashing-ngram-v1';

export const EMBEDDING_DEFAULTS: Record<EmbeddingEnvProvider, { model: string; dimensions: number }> = {
  local: { model: LOCAL_HASHING_MODEL, dimensions: 384 },
  openai: { model: 'text-embedding-3-small', dimensions: 1536 },
  azure_openai: { model: 'text-embedding-3-small', dimensions: 1536 },
  cohere: { model: 'embed-v4.0', dimensions: 1024 },
  voyage: { model: 'voyage-3.5', dimensions: 1024 },
};

/**
 * Why a local model name cannot name a directory under the models root, or
 * null: a plain directory name only (letters, digits, `.`, `_`, `-`, not
 * starting with a dot), so no name reaches outside the root.
 */
export function localModelNameRefusal(name: string): string | null {
  if (/^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/.test(name)) return null;
  return `"${name}" is not a plain directory name (letters, digits, ".", "_" and "-", not starting with "."; no "/" or ".."): name a subdirectory of EMBEDDING_LOCAL_MODELS_DIR, e.g. potion-base-8M.`;
}

function embeddingConfig(env: Env): EmbeddingEnvConfig {
  const provider = oneOf(env, 'EMBEDDING_PROVIDER', EMBEDDING_ENV_PROVIDERS, 'local');
  const defaults = EMBEDDING_DEFAULTS[provider];
  const indexVersion = read(env, 'EMBEDDING_INDEX_VERSION') ?? 'v1';
  if (indexVersion.length > 100)
    throw new ConfigError('EMBEDDING_INDEX_VERSION must be at most 100 characters.');
  const modelsDirRaw = read(env, 'EMBEDDING_LOCAL_MODELS_DIR');
  const localModelsDir = modelsDirRaw ? resolve(process.cwd(), modelsDirRaw) : null;
  const model = read(env, 'EMBEDDING_MODEL') ?? defaults.model;
  const directoryModel = provider === 'local' && model !== LOCAL_HASHING_MODEL;
  if (directoryModel) {
    if (!localModelsDir) {
      throw new ConfigError(
        `EMBEDDING_MODEL "${model}" is not the built-in ${LOCAL_HASHING_MODEL}: set EMBEDDING_LOCAL_MODELS_DIR to the directory that holds it.`,
      );
    }
    const refusal = localModelNameRefusal(model);
    if (refusal) throw new ConfigError(`EMBEDDING_MODEL: ${refusal}`);
  }
  const dimensions =
    directoryModel && read(env, 'EMBEDDING_DIMENSIONS') === undefined
      ? null
      : integer(env, 'EMBEDDING_DIMENSIONS', defaults.dimensions, 8, 2000);
  return {
    provider,
    model,
    dimensions,
    localModelsDir,
    apiKey: read(env, 'EMBEDDING_API_KEY') ?? null,
    apiBaseUrl: url(env, 'EMBEDDING_API_BASE_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null,
    enabled: boolean(env, 'EMBEDDING_ENABLED', true),
    indexVersion,
    batchSize: integer(env, 'EMBEDDING_BATCH_SIZE', 64, 1, 2048),
  };
}

/** json in production and wherever stdout is not a terminal (a container, a pipe, a log shipper). */
function logFormat(env: Env, stdoutIsTty: boolean): LogFormat {
  const fallback = env.NODE_ENV === 'production' || !stdoutIsTty ? 'json' : 'pretty';
  return oneOf(env, 'LOG_FORMAT', LOG_FORMATS, fallback);
}

export function loadConfig(env: Env = process.env, stdoutIsTty = process.stdout.isTTY === true): AppConfig {
  const dataDirRaw = read(env, 'DATA_DIR') ?? './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(process.cwd(), dataDirRaw);
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const jwtSecret = read(env, 'JWT_SECRET') ?? persistedSecret(dataDir, 'jwt.secret', 48);
  if (jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET must be at least 32 characters long.');
  }
  const port = integer(env, 'PORT', 8000, 0, 65535);
  const storageBackend = oneOf(env, 'STORAGE_BACKEND', ['local', 's3'] as const, 'local');
  return {
    port,
    host: read(env, 'HOST') ?? '0.0.0.0',
    databaseUrl,
    databasePoolSize: databaseUrl ? integer(env, 'DATABASE_POOL_SIZE', 10, 1, 200) : 1,
    instanceDatabasePoolSize: integer(env, 'INSTANCE_DATABASE_POOL_SIZE', 4, 1, 100),
    connectorPoolSize: integer(env, 'CONNECTOR_POOL_SIZE', 2, 1, 10),
    searchCacheItems: integer(env, 'SEARCH_CACHE_ITEMS', 20_000, 0, 1_000_000),
    searchExactTotalUpTo: integer(env, 'SEARCH_EXACT_TOTAL_UP_TO', 10_000, 1, 1_000_000),
    webConcurrency: webConcurrency(env, databaseUrl),
    dataDir,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: redisKeyPrefix(env),
    jwtSecret,
    encryptionKey: encryptionKey(env, dataDir),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: read(env, 'MAIL_FROM') ?? 'Verity <no-reply@verity.local>',
    publicBaseUrl: (url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(
      /\/+$/,
      '',
    ),
    registrationOpen: boolean(env, 'REGISTRATION_OPEN', true),
    rateLimitUserTier: oneOf(env, 'RATE_LIMIT_USER_TIER', RATE_LIMIT_TIERS, 'premium'),
    rateLimitAnonTier: oneOf(env, 'RATE_LIMIT_ANON_TIER', RATE_LIMIT_TIERS, 'standard'),
    rateLimitEnabled: boolean(env, 'RATE_LIMIT_ENABLED', true),
    metricsToken: read(env, 'METRICS_TOKEN') ?? null,
    storageBackend,
    s3: s3Config(env, storageBackend),
    // Seven days is the longest an S3 presigned URL may live.
    attachmentLinkTtlSeconds: integer(env, 'ATTACHMENT_LINK_TTL_SECONDS', 900, 1, 604_800),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: logFormat(env, stdoutIsTty),
    accessLog: boolean(env, 'ACCESS_LOG', true),
    corsOrigins: corsOrigins(env),
    refreshCookieSameSite: oneOf(env, 'REFRESH_COOKIE_SAMESITE', REFRESH_COOKIE_SAMESITE_VALUES, 'strict'),
    trustProxy: trustProxy(env),
    allowPrivateNetworkTargets: boolean(env, 'ALLOW_PRIVATE_NETWORK_TARGETS', false),
    jobLeaseSeconds: integer(env, 'JOB_LEASE_SECONDS', 30, 3, 600),
    openLineageRetentionDays: integer(env, 'OPENLINEAGE_RETENTION_DAYS', 30, 1, 3650),
    ai: aiConfig(env),
    toolProviders: {
      discoveryTimeoutMs: integer(env, 'TOOL_DISCOVERY_TIMEOUT_MS', 20_000, 100, 20_000),
      callTimeoutMs: integer(env, 'TOOL_CALL_TIMEOUT_MS', 30_000, 100, 120_000),
      healthTimeoutMs: integer(env, 'TOOL_HEALTH_TIMEOUT_MS', 5_000, 100, 20_000),
      sessionIdleMs: integer(env, 'TOOL_SESSION_IDLE_MS', 300_000, 1_000, 3_600_000),
      path: read(env, 'PATH') ?? '/usr/local/bin:/usr/bin:/bin',
    },
    embeddings: embeddingConfig(env),
  };
}
