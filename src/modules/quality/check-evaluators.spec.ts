import { sameType } from './check-evaluators';

describe('schema check type comparison', () => {
  it('matches names case-insensitively and through common aliases', () => {
    expect(sameType('TEXT', 'text')).toBe(true);
    expect(sameType('int', 'integer')).toBe(true);
    expect(sameType('int8', 'bigint')).toBe(true);
    expect(sameType('timestamptz', 'timestamp with time zone')).toBe(true);
    expect(sameType('varchar', 'character varying(40)')).toBe(true);
  });

  it('lets a bare name match a parameterised type, but not the other way round', () => {
    expect(sameType('numeric', 'numeric(12,2)')).toBe(true);
    expect(sameType('numeric(10,2)', 'numeric(12,2)')).toBe(false);
    expect(sameType('numeric(12,2)', 'numeric(12,2)')).toBe(true);
  });

  it('tells different types apart', () => {
    expect(sameType('integer', 'numeric(12,2)')).toBe(false);
    expect(sameType('timestamp', 'timestamp with time zone')).toBe(false);
  });
});
