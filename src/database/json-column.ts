import type { QueryDeepPartialEntity } from 'typeorm';

/**
 * TypeORM's partial-entity type cannot express `unknown` inside a jsonb
 * column; this states that a plain JSON object is a valid value for one.
 */
export function jsonValue<T extends object>(value: T): QueryDeepPartialEntity<T> {
  return value as QueryDeepPartialEntity<T>;
}
