import { checkToolOutput, MAX_TOOL_OUTPUT_BYTES, queryKeyHash, sanitiseQuery } from './web-research-rules';

describe('sanitiseQuery', () => {
  it('trims, collapses whitespace, removes control characters and applies NFKC, keeping case', () => {
    const result = sanitiseQuery('  Data\u0007  Mesh\t\tＧovernance \u200b ');
    expect(result).toEqual({
      ok: true,
      value: { query: 'Data Mesh Governance', keyHash: queryKeyHash('data mesh governance') },
    });
  });

  it('gives queries that differ only in case and whitespace one reuse key', () => {
    const a = sanitiseQuery('Open Lineage  SPEC');
    const b = sanitiseQuery(' open lineage spec ');
    expect(a.ok && b.ok && a.value.keyHash === b.value.keyHash).toBe(true);
    const c = sanitiseQuery('open lineage specs');
    expect(c.ok && a.ok && c.value.keyHash !== a.value.keyHash).toBe(true);
  });

  it.each([
    ['an email', 'contact jane.doe@acme.com about pricing', /email address/],
    ['URL credentials', 'fetch https://admin:hunter2@db.acme.internal/ status', /credentials in a URL/],
    ['a bare userinfo URL', 'see ftp://svc@files.acme.com', /credentials in a URL/],
    ['an OpenAI-style key', 'why does sk-proj-abcdefghijklmnop1234 fail', /secret-looking token/],
    ['an AWS key id', 'AKIAIOSFODNN7EXAMPLE permissions', /secret-looking token/],
    ['a GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789 scopes', /secret-looking token/],
    [
      'a JWT',
      'decode eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      /secret/,
    ],
    ['a password assignment', 'postgres password=Sup3rS3cret!x connection', /secret-looking token/],
    ['a generated-looking token', 'token Zx8Qp2Lm9Rt4Vw7Yb3Nc6Hd1Jf5Kg0 invalid', /secret-looking token/],
    ['a card number', 'card 4111 1111 1111 1111 declined', /payment card/],
    ['a phone number', 'call +44 20 7946 0958 support', /phone number/],
  ])('refuses a query with %s, naming the kind but not the value', (_label, raw, kind) => {
    const result = sanitiseQuery(raw);
    expect(result.ok).toBe(false);
    const reason = !result.ok ? result.reason : '';
    expect(reason).toMatch(kind);
    expect(reason).toMatch(/not sent and not stored/);
    expect(reason).not.toContain(raw.split(' ')[1]);
  });

  it.each(['   ', 'a\u0000\u0000', `${'x'.repeat(501)}`])('refuses %j by length after cleaning', (raw) => {
    expect(sanitiseQuery(raw)).toEqual({ ok: false, reason: expect.stringMatching(/3 to 500 characters/) });
  });

  it('accepts ordinary technical queries', () => {
    for (const q of [
      'dbt incremental model strategy',
      'Apache Iceberg vs Delta Lake 2026',
      'sha256 of parquet files',
    ]) {
      expect(sanitiseQuery(q).ok).toBe(true);
    }
  });
});

const item = (n: number, extra: Record<string, unknown> = {}) => ({
  title: `Title ${n}`,
  url: `https://www.site${n}.example.com/p/${n}`,
  snippet: `Snippet ${n}`,
  ...extra,
});

describe('checkToolOutput', () => {
  it('adds rank and domain and keeps at most min(max_results, 8)', () => {
    const output = {
      results: Array.from({ length: 12 }, (_, i) => item(i + 1, { published_at: '2026-02-03T04:05:06Z' })),
    };
    const check = checkToolOutput(output, 8);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.results).toHaveLength(8);
    expect(check.results[0]).toEqual({
      title: 'Title 1',
      url: 'https://www.site1.example.com/p/1',
      snippet: 'Snippet 1',
      published_at: '2026-02-03T04:05:06.000Z',
      rank: 1,
      domain: 'site1.example.com',
    });
    expect(check.results.map((r) => r.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const three = checkToolOutput(output, 3);
    expect(three.ok && three.results).toHaveLength(3);
  });

  it.each([
    ['null', null, /JSON object/],
    ['an array', [item(1)], /JSON object/],
    ['no results', { items: [] }, /`results` array/],
    ['results not an array', { results: 'x' }, /`results` array/],
  ])('refuses %s whole', (_label, output, reason) => {
    expect(checkToolOutput(output, 8)).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('refuses an oversized answer whole', () => {
    const output = { results: [item(1, { snippet: 'x'.repeat(MAX_TOOL_OUTPUT_BYTES) })] };
    expect(checkToolOutput(output, 8)).toEqual({
      ok: false,
      reason: expect.stringMatching(/more than the 262144/),
    });
  });

  it('drops private, metadata, non-HTTPS and malformed items and counts them; ranks only what is kept', () => {
    const output = {
      results: [
        item(1, { url: 'http://plain.example.com/' }),
        item(2, { url: 'https://10.0.0.2/' }),
        item(3, { url: 'https://[::1]/' }),
        item(4, { url: 'https://metadata.google.internal' }),
        null,
        { title: 'no url' },
        item(5),
        item(5),
        item(6, { url: 'https://docs.example.com/file?X-Amz-Signature=abc&token=zzz' }),
      ],
    };
    const check = checkToolOutput(output, 8);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    // A cloud metadata host is refused by the outbound-URL policy whatever the settings.
    expect(check.results.map((r) => [r.rank, r.domain])).toEqual([[1, 'site5.example.com']]);
    expect(check.dropped).toEqual({ unsafe_url: 4, sensitive: 1, malformed: 2, duplicate: 1 });
  });

  it('drops items carrying secrets and redacts personal data in the ones kept', () => {
    const check = checkToolOutput(
      {
        results: [
          item(1, { snippet: 'config: api_key=sk-live-4eC39HqLyjWDarjtT1zdp7dc' }),
          item(2, { snippet: 'Write to privacy@acme.com for details.' }),
        ],
      },
      8,
    );
    expect(check.ok && check.results).toEqual([
      expect.objectContaining({ rank: 1, snippet: 'Write to [REDACTED_EMAIL] for details.' }),
    ]);
    expect(check.ok && check.dropped.sensitive).toBe(1);
    expect(check.ok && check.redactions).toBe(1);
  });

  it('cleans text, bounds it, falls back to the host for a missing title, ignores a bad date', () => {
    const check = checkToolOutput(
      {
        results: [
          {
            url: 'https://a.example.com/',
            title: '  \u0000 ',
            snippet: 'y'.repeat(3000),
            published_at: 'soon',
          },
        ],
      },
      8,
    );
    expect(check.ok && check.results[0]).toEqual({
      title: 'a.example.com',
      url: 'https://a.example.com/',
      snippet: expect.stringMatching(/^y{999}…$/),
      rank: 1,
      domain: 'a.example.com',
    });
  });
});
