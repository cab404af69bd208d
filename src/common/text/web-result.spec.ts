import { cleanText, publishedAt, resultUrlRefusal } from './web-result';

describe('cleanText', () => {
  it('removes control, zero-width and bidi characters and collapses whitespace', () => {
    expect(cleanText(' a\u0000b\u200bc\u202ed \r\n\t e\u009f ', 100)).toBe('a b c d e');
  });

  it('bounds the length in code points, marking the cut', () => {
    expect(cleanText('😀'.repeat(10), 5)).toBe('😀😀😀😀…');
    expect(Array.from(cleanText('x'.repeat(50), 20))).toHaveLength(20);
    expect(cleanText('short', 20)).toBe('short');
  });

  it('drops lone surrogates', () => {
    expect(cleanText('a\ud800b', 10)).toBe('ab');
  });
});

describe('resultUrlRefusal', () => {
  it('accepts public HTTPS host names and addresses', () => {
    expect(resultUrlRefusal('https://example.com/a?b=c')).toBeNull();
    expect(resultUrlRefusal('https://8.8.8.8/')).toBeNull();
  });

  it.each([
    'http://example.com/',
    'https://10.0.0.1/',
    'https://[::1]/',
    'https://x.local/',
    'ftp://example.com/',
  ])('refuses %s', (url) => expect(resultUrlRefusal(url)).not.toBeNull());
});

describe('publishedAt', () => {
  it('answers ISO UTC for dates that parse, undefined otherwise', () => {
    expect(publishedAt('2026-05-01')).toBe('2026-05-01T00:00:00.000Z');
    expect(publishedAt(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(publishedAt('yesterday')).toBeUndefined();
    expect(publishedAt(null)).toBeUndefined();
    expect(publishedAt('')).toBeUndefined();
    expect(publishedAt(8.64e15 + 1)).toBeUndefined();
  });
});
