import { firstFreeSlug, isUuid, SLUG_PATTERN, slugify, withSuffix } from './slug';

describe('slugify', () => {
  it.each([
    ['Data Platform', 'data-platform'],
    ['  Finance & Risk  ', 'finance-risk'],
    ['Café Ünïcode', 'cafe-unicode'],
    ['ALL--CAPS__name', 'all-caps-name'],
    ['2024 Reports', '2024-reports'],
  ])('derives %p as %p', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('falls back when too few characters are usable', () => {
    expect(slugify('!!!')).toBe('space');
    expect(slugify('日本語')).toBe('space');
    expect(slugify('X')).toBe('x-space');
  });

  it('keeps slugs within 63 characters, without a trailing hyphen', () => {
    const slug = slugify(`${'a'.repeat(62)} b`);
    expect(slug).toBe('a'.repeat(62));
    expect(slugify('word '.repeat(30)).length).toBeLessThanOrEqual(63);
    expect(slugify('word '.repeat(30))).toMatch(SLUG_PATTERN);
    expect(slugify('word '.repeat(30))).not.toMatch(/-$/);
  });

  it('never derives a UUID-shaped slug', () => {
    const slug = slugify('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(isUuid(slug)).toBe(false);
    expect(slug).toMatch(SLUG_PATTERN);
  });

  it('always produces a valid slug', () => {
    for (const name of ['a', 'ab', '-a-', 'Ä', '___', 'x'.repeat(200), 'Sales (EMEA) / 2025']) {
      expect(slugify(name)).toMatch(SLUG_PATTERN);
    }
  });
});

describe('firstFreeSlug', () => {
  it('keeps the base when free', () => {
    expect(firstFreeSlug('sales', new Set(['other']))).toBe('sales');
  });

  it('picks the first free numeric suffix', () => {
    expect(firstFreeSlug('sales', new Set(['sales']))).toBe('sales-2');
    expect(firstFreeSlug('sales', new Set(['sales', 'sales-2', 'sales-4']))).toBe('sales-3');
  });

  it('shortens long bases so the suffix fits', () => {
    const base = 'a'.repeat(63);
    const slug = firstFreeSlug(base, new Set([base]));
    expect(slug).toBe(`${'a'.repeat(61)}-2`);
    expect(slug).toMatch(SLUG_PATTERN);
    expect(withSuffix(`${'a'.repeat(59)}-bcd`, 10)).toBe(`${'a'.repeat(59)}-10`);
  });
});
