import { pickMostUpstream } from './lineage-graph';

describe('pickMostUpstream', () => {
  it('answers null for no products and the product itself for one', () => {
    expect(pickMostUpstream([], [])).toBeNull();
    expect(pickMostUpstream(['a'], [])).toBe('a');
  });

  it('picks the member no other member is upstream of', () => {
    // a -> b -> c
    const pairs = [
      { product: 'b', ancestor: 'a' },
      { product: 'c', ancestor: 'b' },
      { product: 'c', ancestor: 'a' },
    ];
    expect(pickMostUpstream(['c', 'b', 'a'], pairs)).toBe('a');
    expect(pickMostUpstream(['c', 'b'], pairs)).toBe('b');
  });

  it('ignores ancestors outside the set', () => {
    // x -> a, x -> b: neither a nor b is upstream of the other
    const pairs = [
      { product: 'a', ancestor: 'x' },
      { product: 'b', ancestor: 'x' },
    ];
    expect(pickMostUpstream(['b', 'a'], pairs)).toBe('b');
  });

  it('prefers the root with the most members downstream, then input order', () => {
    // r1 -> a ; r2 -> b, r2 -> c
    const pairs = [
      { product: 'a', ancestor: 'r1' },
      { product: 'b', ancestor: 'r2' },
      { product: 'c', ancestor: 'r2' },
    ];
    expect(pickMostUpstream(['r1', 'a', 'r2', 'b', 'c'], pairs)).toBe('r2');
    expect(pickMostUpstream(['r1', 'r2'], [])).toBe('r1');
  });

  it('tolerates duplicates and self pairs', () => {
    expect(pickMostUpstream(['a', 'a'], [{ product: 'a', ancestor: 'a' }])).toBe('a');
  });
});
