import { AnswerCache } from './search-cache';

describe('AnswerCache', () => {
  let now = 0;
  const clock = () => now;
  const entry = (answer: string) => ({ snapshot: '10:12:11', takenAt: now, answer });

  beforeEach(() => {
    now = 1_000_000;
  });

  it('answers what was set under a key, and nothing under another', () => {
    const cache = new AnswerCache<string>(10, 60_000, clock);
    cache.set('a', entry('A'));
    expect(cache.get('a')).toEqual({ snapshot: '10:12:11', takenAt: 1_000_000, answer: 'A' });
    expect(cache.get('b')).toBeUndefined();
  });

  it('replaces the entry of a key set again', () => {
    const cache = new AnswerCache<string>(10, 60_000, clock);
    cache.set('a', entry('A'));
    cache.set('a', { ...entry('A2'), snapshot: '12:14:' });
    expect(cache.get('a')?.answer).toBe('A2');
    expect(cache.size).toBe(1);
  });

  it('lets the least recently used entry go when full', () => {
    const cache = new AnswerCache<string>(2, 60_000, clock);
    cache.set('a', entry('A'));
    cache.set('b', entry('B'));
    expect(cache.get('a')?.answer).toBe('A'); // b is now the least recently used
    cache.set('c', entry('C'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.answer).toBe('A');
    expect(cache.get('c')?.answer).toBe('C');
    expect(cache.size).toBe(2);
  });

  it('drops an entry once its snapshot is as old as the TTL', () => {
    const cache = new AnswerCache<string>(10, 60_000, clock);
    cache.set('a', entry('A'));
    now += 59_999;
    expect(cache.get('a')?.answer).toBe('A');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps nothing with a capacity of 0', () => {
    const cache = new AnswerCache<string>(0, 60_000, clock);
    cache.set('a', entry('A'));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
