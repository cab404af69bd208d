import { QueryFailedError } from 'typeorm';
import { Conflict, DomainError, ValidationFailed } from './domain-error';

interface PgDriverError {
  code?: string;
  constraint?: string;
  column?: string;
  detail?: string;
}

/** The constraint a statement violated (SQLSTATE class 23), or null for any other error. */
export function violatedConstraint(error: unknown): { code: string; constraint: string | null } | null {
  if (!(error instanceof QueryFailedError)) return null;
  const pg = error.driverError as PgDriverError;
  return pg.code?.startsWith('23') ? { code: pg.code, constraint: pg.constraint ?? null } : null;
}

/** Human name of a constraint's subject, e.g. `spaces_slug_key` -> `slug`. */
function subject(error: PgDriverError): string {
  const keyColumns = /^Key \(([^)]+)\)/.exec(error.detail ?? '')?.[1];
  if (keyColumns) return keyColumns.replace(/"/g, '').replace(/_id\b/g, '');
  return error.column ?? 'value';
}

/**
 * Maps the constraint violations that reach the filter despite the services'
 * own checks (mostly races) to problem details. Returns null for anything
 * that is a genuine server error.
 */
export function mapPostgresError(error: unknown): DomainError | null {
  if (!(error instanceof QueryFailedError)) return null;
  const pg = error.driverError as PgDriverError;
  switch (pg.code) {
    case '23505':
      return new Conflict(`A resource with the same ${subject(pg)} already exists.`, 'duplicate');
    case '23503':
      return /is not present in table/.test(pg.detail ?? '')
        ? ValidationFailed.field(subject(pg), `The referenced ${subject(pg)} does not exist.`)
        : new Conflict('The resource is still referenced by other resources.', 'still_referenced');
    case '23502':
      return ValidationFailed.field(pg.column ?? 'value', `${pg.column ?? 'A value'} is required.`);
    case '23514':
    case '22P02':
    case '22001':
    case '22003':
    case '22007':
    case '22008':
      return ValidationFailed.field(pg.column ?? 'value', 'A value is malformed or out of range.');
    default:
      return null;
  }
}

// Refused or lost connections, and PostgreSQL's connection-failure (08xxx) and shutdown (57P0x)
// classes, too many connections (53300) and a database that does not exist (3D000).
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '3D000',
]);
const CONNECTION_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|not currently accepting connections/i;

/** The error says the database could not be reached (not that a statement was wrong). */
export function isConnectionFailure(error: unknown): boolean {
  const cause = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  if (!(cause instanceof Error)) return false;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  return CONNECTION_MESSAGE.test(cause.message);
}
