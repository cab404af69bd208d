import { STATUS_SLUG_PATTERN } from './dto/metadata-requests.dto';
import { COLLECTION_SPECS, snakeSlug } from './collections';

describe('snakeSlug', () => {
  it.each([
    ['Under Maintenance', 'under_maintenance'],
    ['Active', 'active'],
    ['  Being -- Rebuilt!  ', 'being_rebuilt'],
    ['Dépréciée', 'depreciee'],
    ['2nd line', 's_2nd_line'],
    ['***', 'status'],
  ])('derives %p as %p', (name, slug) => {
    expect(snakeSlug(name)).toBe(slug);
    expect(slug).toMatch(STATUS_SLUG_PATTERN);
  });

  it('keeps long names within 63 characters', () => {
    expect(snakeSlug('word '.repeat(40))).toMatch(STATUS_SLUG_PATTERN);
  });
});

describe('standard defaults', () => {
  it('are the documented values, with valid slugs and colours', () => {
    expect(COLLECTION_SPECS['criticality-levels'].defaults.map((d) => d.name)).toEqual([
      'Critical',
      'High',
      'Medium',
      'Low',
    ]);
    expect(COLLECTION_SPECS['sensitivity-levels'].defaults.map((d) => d.name)).toEqual([
      'Public',
      'Internal',
      'Confidential',
      'Restricted',
    ]);
    const statuses = COLLECTION_SPECS['maintenance-statuses'].defaults;
    expect(statuses.map((d) => [d.name, d.slug])).toEqual([
      ['Active', 'active'],
      ['Deprecated', 'deprecated'],
      ['Retired', 'retired'],
      ['Under Maintenance', 'under_maintenance'],
    ]);
    for (const spec of Object.values(COLLECTION_SPECS)) {
      for (const value of spec.defaults) expect(value.color).toMatch(/^#[0-9A-F]{6}$/);
    }
    for (const status of statuses) expect(snakeSlug(status.name)).toBe(status.slug);
  });
});
