import { isStorableText, unstorableFields } from './storable-text';

describe('storable text', () => {
  it('refuses NUL and unpaired surrogates, keeps pairs and other control characters', () => {
    expect(isStorableText('plain \t\n\r\u0007 text')).toBe(true);
    expect(isStorableText('emoji \u{1F4E6}')).toBe(true);
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('\uD800')).toBe(false);
    expect(isStorableText('x\uDC00')).toBe(false);
    expect(isStorableText('\uDE00\uD83D')).toBe(false);
  });

  it('names every offending field and key in document order, nested or not', () => {
    const fields = unstorableFields(
      {
        ok: 'fine',
        name: 'a\u0000',
        tags: ['x', '\uD800'],
        deep: { ['k\u0000']: 1, list: [{ v: '\uDC00' }] },
      },
      'body',
    ).map((e) => e.field);
    expect(fields).toEqual(['name', 'tags.1', 'deep.k\\u0000', 'deep.list.0.v']);
  });

  it('names the root when the value itself is a string, and ignores other types', () => {
    expect(unstorableFields('\u0000', 'body').map((e) => e.field)).toEqual(['body']);
    expect(unstorableFields({ n: 1, b: true, z: null }, 'query')).toEqual([]);
    expect(unstorableFields(undefined, 'body')).toEqual([]);
  });

  it('stops after twenty errors', () => {
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, '\u0000']));
    expect(unstorableFields(many, 'body')).toHaveLength(20);
  });
});
