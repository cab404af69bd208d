import { normaliseMetasearchAnswer, UpstreamShapeError } from './metasearch-results';

const item = (n: number, extra: Record<string, unknown> = {}) => ({
  title: `T${n}`,
  url: `https://e${n}.example.com/p`,
  content: `S${n}`,
  ...extra,
});

describe('normaliseMetasearchAnswer', () => {
  it.each([[null], [[]], ['text'], [{}], [{ results: {} }]])('refuses %j', (answer) => {
    expect(() => normaliseMetasearchAnswer(answer, 8)).toThrow(UpstreamShapeError);
  });

  it('caps at min(max_results, 8)', () => {
    const answer = { results: Array.from({ length: 20 }, (_, i) => item(i)) };
    expect(normaliseMetasearchAnswer(answer, 8)).toHaveLength(8);
    expect(normaliseMetasearchAnswer(answer, 3)).toHaveLength(3);
    expect(normaliseMetasearchAnswer(answer, 50)).toHaveLength(8);
  });

  it('maps SearXNG fields and keeps published_at only when it parses', () => {
    const [a, b] = normaliseMetasearchAnswer(
      { results: [item(1, { publishedDate: '2026-03-01T12:00:00Z' }), item(2, { publishedDate: 'soon' })] },
      8,
    );
    expect(a).toEqual({
      title: 'T1',
      url: 'https://e1.example.com/p',
      snippet: 'S1',
      published_at: '2026-03-01T12:00:00.000Z',
    });
    expect(b).toEqual({ title: 'T2', url: 'https://e2.example.com/p', snippet: 'S2' });
  });

  it.each([
    'http://plain.example.com/',
    'https://127.0.0.1/',
    'https://192.168.0.1/',
    'https://[fe80::1]/',
    'https://localhost/',
    'https://intranet/',
    'https://a:b@x.example.com/',
    'javascript:alert(1)',
    `https://long.example.com/${'a'.repeat(2100)}`,
  ])('drops the result URL %s', (url) => {
    expect(normaliseMetasearchAnswer({ results: [{ title: 'x', url }, item(1)] }, 8)).toEqual([
      { title: 'T1', url: 'https://e1.example.com/p', snippet: 'S1' },
    ]);
  });

  it('skips items that are not objects and repeats of a URL (fragment ignored)', () => {
    const results = [null, 'x', [], item(1), item(1, { url: 'https://e1.example.com/p#top' })];
    expect(normaliseMetasearchAnswer({ results }, 8)).toHaveLength(1);
  });
});
