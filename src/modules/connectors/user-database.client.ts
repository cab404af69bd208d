import { Inject, Injectable } from '@nestjs/common';
import { Client, QueryArrayConfig, QueryConfig } from 'pg';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { OutboundPolicy } from '../../platform/outbound-http/outbound-policy.service';
import { isRefusal } from '../../platform/outbound-http/outbound-url-policy';
import { PostgresTarget } from './connection-string';

/** Limits of every session on a user's database. */
export const USER_DB_LIMITS = {
  connectTimeoutMs: 5_000,
  /** The default statement timeout; a check may ask for less. */
  statementTimeoutMs: 10_000,
  lockTimeoutMs: 2_000,
  /** Rows any one query may bring back. */
  rowCap: 1_000,
} as const;

export interface SessionOptions {
  statementTimeoutMs?: number;
  /** Sets the session's TimeZone to UTC, so that `timestamptz` values read as text are in UTC. */
  utcTimestamps?: boolean;
}

/** A result read as text, untouched by the driver's parsers: one array per row, in column order. */
export interface RawResult {
  fields: { name: string; typeId: number }[];
  rows: (string | null)[][];
}

/** Queries on a user's database inside one read-only transaction. */
export interface ReadOnlySession {
  /** One statement (extended protocol, so never several), with bound parameters. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Like `query`, but every value as PostgreSQL's text (lossless) and rows as arrays (duplicate names kept). */
  queryRaw(sql: string, params?: unknown[]): Promise<RawResult>;
}

/**
 * A user's database could not be reached or refused a query; the message is
 * safe to show. `code` is the SQLSTATE when the database refused a statement.
 */
export class UserDatabaseError extends Error {
  override readonly name = 'UserDatabaseError';

  constructor(
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

const asText = (value: string) => value;
const TEXT_TYPES = { getTypeParser: () => asText };

/**
 * Sessions on users' databases, never on the application's pool: the host
 * resolved and checked against the outbound address policy at connect time
 * (and the checked address is the one dialled, so DNS cannot be swapped in
 * between), the session read-only by default, and every use inside a READ
 * ONLY transaction with its statement and lock timeouts, rolled back.
 * `withSession` opens a connection of its own (connection tests, syncs);
 * `withPooledSession` borrows a warm one from the connector's pool
 * (SourceConnectionPool: the visual query and quality checks).
 */
@Injectable()
export class UserDatabase {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbound: OutboundPolicy,
  ) {}

  async withSession<T>(
    target: PostgresTarget,
    work: (session: ReadOnlySession) => Promise<T>,
    options: SessionOptions = {},
  ): Promise<T> {
    const client = await this.connect(target);
    try {
      await begin(client, options);
      return await work(sessionOn(client));
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    }
  }

  /** A connected session on `target` (every new pooled connection too); each use then opens its transaction with `begin`. */
  async connect(target: PostgresTarget): Promise<Client> {
    const address = await this.resolve(target.host);
    const client = new Client({
      host: address,
      port: target.port,
      user: target.user,
      password: target.password,
      database: target.database,
      ssl:
        target.sslmode === 'disable'
          ? false
          : { rejectUnauthorized: target.sslmode === 'verify-full', servername: target.host },
      connectionTimeoutMillis: USER_DB_LIMITS.connectTimeoutMs,
      // A client-side backstop in case the server ignores the statement timeout.
      query_timeout: USER_DB_LIMITS.statementTimeoutMs + 5_000,
      application_name: 'verity-connector',
    });
    client.on('error', () => undefined); // a dropped connection surfaces through the pending query
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw new UserDatabaseError(`Could not connect to ${target.host}:${target.port}: ${reason(error)}`);
    }
  }

  /** The address to dial: the host itself when literal, else its first address, every one of them allowed. */
  private async resolve(host: string): Promise<string> {
    let found: Awaited<ReturnType<OutboundPolicy['resolveAllowed']>>;
    try {
      found = await this.outbound.resolveAllowed(host, this.outbound.rules('database', host));
    } catch {
      throw new UserDatabaseError(`${host} does not resolve.`);
    }
    if (isRefusal(found)) {
      throw new UserDatabaseError(
        found.reason === 'invalid_host' ? `${found.message}.` : `${host} is not allowed: ${found.message}.`,
      );
    }
    return found[0].address;
  }
}

/**
 * Opens a use's READ ONLY transaction with its limits, in one round trip.
 * Every setting is `SET LOCAL`: it ends with the transaction, so nothing of
 * one use's settings outlives it, and no startup option is needed (which
 * some connection poolers in front of a source refuse).
 */
export async function begin(client: Client, options: SessionOptions): Promise<void> {
  const timeout = Math.min(options.statementTimeoutMs ?? Infinity, USER_DB_LIMITS.statementTimeoutMs);
  try {
    await client.query(
      `BEGIN READ ONLY; SET LOCAL default_transaction_read_only = on;
       SET LOCAL statement_timeout = ${Math.floor(timeout)}; SET LOCAL lock_timeout = ${USER_DB_LIMITS.lockTimeoutMs};
       SET LOCAL idle_in_transaction_session_timeout = 60000` +
        (options.utcTimestamps ? `; SET LOCAL TimeZone = 'UTC'` : ''),
    );
  } catch (error) {
    throw new UserDatabaseError(reason(error), sqlState(error));
  }
}

/**
 * Ends a pooled use: its transaction rolled back, then `DISCARD ALL` (outside
 * any transaction block, where it must run), which drops what survives a
 * rollback: session settings, temporary tables, prepared statements,
 * advisory locks, LISTENs. False when the connection failed doing so.
 */
export async function resetSession(client: Client): Promise<boolean> {
  try {
    await client.query('ROLLBACK');
    await client.query('DISCARD ALL');
    return true;
  } catch {
    return false;
  }
}

/** The session a use's work talks through: one statement per call (extended protocol), errors as UserDatabaseError. */
export function sessionOn(client: Client): ReadOnlySession {
  const run = async (config: QueryConfig | QueryArrayConfig) => {
    try {
      // The extended protocol runs exactly one statement: no `; COMMIT; ...` smuggling.
      const extended: QueryConfig & { queryMode: 'extended' } = { ...config, queryMode: 'extended' };
      return await client.query(extended);
    } catch (error) {
      throw new UserDatabaseError(reason(error), sqlState(error));
    }
  };
  return {
    query: async <R>(sql: string, params: unknown[] = []) =>
      (await run({ text: sql, values: params })).rows as R[],
    queryRaw: async (sql: string, params: unknown[] = []) => {
      const config: QueryArrayConfig = { text: sql, values: params, rowMode: 'array', types: TEXT_TYPES };
      const result = await run(config);
      return {
        fields: result.fields.map((f) => ({ name: f.name, typeId: f.dataTypeID })),
        rows: result.rows as unknown as (string | null)[][],
      };
    },
  };
}

function sqlState(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/** A database error's own message (PostgreSQL never echoes the password). */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 500);
}
