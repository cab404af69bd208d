import { AnswerCache } from './search-cache';

describe('AnswerCache', () => {
  let now = 0;
  const clock = () => now;
  const entry = (answer: string) => ({ snapshot: '10:12:11', takenAt: now, answer });
  // An answer weighs its length: 'A' 1, 'BBB' 3.
  const cacheOf = (capacity: number) =>
    new AnswerCache<string>(capacity, 60_000, (answer) => answer.length, clock);

  beforeEach(() => {
    now = 1_000_000;
  });

  it('answers what was set under a key, and nothing under another', () => {
    const cache = cacheOf(10);
    cache.set('a', entry('A'));
    expect(cache.get('a')).toMatchObject({ snapshot: '10:12:11', takenAt: 1_000_000, answer: 'A' });
    expect(cache.get('b')).toBeUndefined();
  });

  it('replaces the entry of a key set again, and its weight', () => {
    const cache = cacheOf(10);
    cache.set('a', entry('A'));
    cache.set('a', { ...entry('AAAA'), snapshot: '12:14:' });
    expect(cache.get('a')).toMatchObject({ snapshot: '12:14:', answer: 'AAAA' });
    expect(cache.size).toBe(1);
    expect(cache.totalWeight).toBe(4);
  });

  it('lets the least recently used entries go until the weight fits', () => {
    const cache = cacheOf(6);
    cache.set('a', entry('AA'));
    cache.set('b', entry('BB'));
    cache.set('c', entry('CC'));
    expect(cache.get('a')?.answer).toBe('AA'); // b is now the least recently used, then c
    cache.set('d', entry('DDDD'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('a')?.answer).toBe('AA');
    expect(cache.get('d')?.answer).toBe('DDDD');
    expect(cache.totalWeight).toBe(6);
  });

  it('keeps no answer heavier than the whole capacity, and lets nothing go for it', () => {
    const cache = cacheOf(4);
    cache.set('a', entry('AA'));
    cache.set('big', entry('BBBBB'));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('a')?.answer).toBe('AA');
    expect(cache.totalWeight).toBe(2);
  });

  it('drops an entry once its snapshot is as old as the TTL', () => {
    const cache = cacheOf(10);
    cache.set('a', entry('AAA'));
    now += 59_999;
    expect(cache.get('a')?.answer).toBe('AAA');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.totalWeight).toBe(0);
  });

  it('keeps nothing with a capacity of 0', () => {
    const cache = cacheOf(0);
    cache.set('a', entry('A'));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
