/** JSON values of a query answer, from PostgreSQL's text output (read with the session's TimeZone at UTC). */
export type CellValue = string | number | boolean | null | object;

// Built-in type OIDs (pg_type), stable across PostgreSQL versions.
const BOOL = 16;
const SMALL_INTS = new Set([21, 23, 26]); // int2, int4, oid
const FLOATS = new Set([700, 701]); // float4, float8
const JSON_TYPES = new Set([114, 3802]); // json, jsonb
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

/**
 * Converts one value without loss: numbers that fit a double exactly
 * (int2, int4, floats) as numbers, bigint and numeric as strings, booleans,
 * JSON parsed, timestamps as ISO 8601 UTC with `Z` (a `timestamp without
 * time zone` is taken as UTC), and everything else (dates, times, text,
 * uuids, arrays, ...) as PostgreSQL's own text.
 */
export function toCellValue(text: string | null, typeId: number): CellValue {
  if (text === null) return null;
  if (typeId === BOOL) return text === 't';
  if (SMALL_INTS.has(typeId)) return Number(text);
  if (FLOATS.has(typeId)) {
    const n = Number(text);
    return Number.isFinite(n) ? n : text; // NaN and Infinity have no JSON number
  }
  if (JSON_TYPES.has(typeId)) return JSON.parse(text) as object;
  if (typeId === TIMESTAMP || typeId === TIMESTAMPTZ) return isoTimestamp(text);
  return text;
}

/** `2024-05-01 10:00:00.123456+00` (or without offset) to `2024-05-01T10:00:00.123456Z`; infinity and BC dates stay text. */
export function isoTimestamp(text: string): string {
  const match = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)(?:\+00(?::00)?)?$/.exec(text);
  if (!match) return text;
  const [, year, month, day, time] = match;
  const y = year.length > 4 ? `+${year.padStart(6, '0')}` : year;
  return `${y}-${month}-${day}T${time}Z`;
}
