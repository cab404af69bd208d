import { LruCache } from './lru-cache';

describe('LruCache', () => {
  let now = 0;
  const clock = () => now;
  // A value weighs its length: 'A' 1, 'BBB' 3.
  const cacheOf = (capacity: number) =>
    new LruCache<string>({ capacity, ttlMs: 60_000, weigh: (value) => value.length, clock });

  beforeEach(() => {
    now = 1_000_000;
  });

  it('answers what was set under a key, and nothing under another', () => {
    const cache = cacheOf(10);
    cache.set('a', 'A');
    expect(cache.get('a')).toBe('A');
    expect(cache.get('b')).toBeUndefined();
  });

  it('replaces the entry of a key set again, and its weight', () => {
    const cache = cacheOf(10);
    cache.set('a', 'A');
    cache.set('a', 'AAAA');
    expect(cache.get('a')).toBe('AAAA');
    expect(cache.size).toBe(1);
    expect(cache.totalWeight).toBe(4);
  });

  it('lets the least recently used entries go until the weight fits', () => {
    const cache = cacheOf(6);
    cache.set('a', 'AA');
    cache.set('b', 'BB');
    cache.set('c', 'CC');
    expect(cache.get('a')).toBe('AA'); // b is now the least recently used, then c
    cache.set('d', 'DDDD');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('a')).toBe('AA');
    expect(cache.get('d')).toBe('DDDD');
    expect(cache.totalWeight).toBe(6);
  });

  it('keeps no value heavier than the whole capacity, and lets nothing go for it', () => {
    const cache = cacheOf(4);
    cache.set('a', 'AA');
    cache.set('big', 'BBBBB');
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('a')).toBe('AA');
    expect(cache.totalWeight).toBe(2);
  });

  it('drops an entry once it is as old as the TTL, counted from when it was stored', () => {
    const cache = cacheOf(10);
    cache.set('a', 'AAA');
    cache.set('earlier', 'E', now - 30_000);
    now += 29_999;
    expect(cache.get('earlier')).toBe('E');
    now += 1;
    expect(cache.get('earlier')).toBeUndefined();
    now += 29_999;
    expect(cache.get('a')).toBe('AAA');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.totalWeight).toBe(0);
  });

  it('keeps nothing with a capacity of 0', () => {
    const cache = cacheOf(0);
    cache.set('a', 'A');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('counts entries when no weight is given, and keeps them without a TTL', () => {
    const cache = new LruCache<number>({ capacity: 2, clock });
    cache.set('a', 1);
    cache.set('b', 2);
    now += 10 * 365 * 86_400_000;
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
  });
});
