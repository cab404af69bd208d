import { isoTimestamp, toCellValue } from './query-values';

describe('query values', () => {
  it('keeps big integers and numerics exact, as strings', () => {
    expect(toCellValue('9223372036854775807', 20)).toBe('9223372036854775807');
    expect(toCellValue('12345678901234567890.123456789', 1700)).toBe('12345678901234567890.123456789');
    expect(toCellValue('42', 23)).toBe(42);
    expect(toCellValue('-7', 21)).toBe(-7);
    expect(toCellValue('1.5', 701)).toBe(1.5);
    expect(toCellValue('NaN', 701)).toBe('NaN');
  });

  it('reads booleans, json, nulls and other text', () => {
    expect(toCellValue('t', 16)).toBe(true);
    expect(toCellValue('f', 16)).toBe(false);
    expect(toCellValue('{"a": [1, 2]}', 3802)).toEqual({ a: [1, 2] });
    expect(toCellValue(null, 23)).toBeNull();
    expect(toCellValue('2024-02-29', 1082)).toBe('2024-02-29');
    expect(toCellValue('{1,2}', 1007)).toBe('{1,2}');
  });

  it('writes timestamps as ISO 8601 UTC, keeping microseconds', () => {
    expect(toCellValue('2024-05-01 10:00:00.123456+00', 1184)).toBe('2024-05-01T10:00:00.123456Z');
    expect(toCellValue('2024-05-01 10:00:00', 1114)).toBe('2024-05-01T10:00:00Z');
    expect(isoTimestamp('infinity')).toBe('infinity');
    expect(isoTimestamp('0044-03-15 12:00:00+00 BC')).toBe('0044-03-15 12:00:00+00 BC');
    expect(isoTimestamp('12345-01-01 00:00:00+00')).toBe('+012345-01-01T00:00:00Z');
  });
});
