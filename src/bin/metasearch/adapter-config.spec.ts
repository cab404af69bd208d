import { readAdapterConfig, searchUrl } from './adapter-config';

const base = { VERITY_WEB_SEARCH_ENDPOINT: 'https://search.example.com/search?language=en' };

describe('readAdapterConfig', () => {
  it('reads a public HTTPS endpoint with defaults', () => {
    const result = readAdapterConfig(base);
    expect(result).toEqual({
      ok: true,
      config: expect.objectContaining({ timeoutMs: 10_000, apiKey: null, allowPrivate: false }),
    });
  });

  it('takes the timeout, key and user agent', () => {
    const result = readAdapterConfig({
      ...base,
      VERITY_WEB_SEARCH_TIMEOUT_SECONDS: '30',
      VERITY_WEB_SEARCH_API_KEY: 'k-123',
      VERITY_WEB_SEARCH_USER_AGENT: 'Bot/1',
    });
    expect(result.ok && result.config).toMatchObject({
      timeoutMs: 30_000,
      apiKey: 'k-123',
      userAgent: 'Bot/1',
    });
  });

  it.each([
    ['http://search.example.com/search', /needs ALLOW_PRIVATE_NETWORK_TARGETS/],
    ['https://10.0.0.5/search', /private/],
    ['https://u:p@search.example.com/', /credentials/],
    ['https://search.example.com/#x', /fragment/],
    ['https://search.example.com/#', /fragment/],
    ['not a url', /not a valid URL/],
  ])('refuses the endpoint %s', (endpoint, reason) => {
    const result = readAdapterConfig({ VERITY_WEB_SEARCH_ENDPOINT: endpoint });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.join(' ')).toMatch(reason);
  });

  it('allows a loopback http endpoint only with ALLOW_PRIVATE_NETWORK_TARGETS=true, never link-local', () => {
    const local = { VERITY_WEB_SEARCH_ENDPOINT: 'http://127.0.0.1:8888/search' };
    expect(readAdapterConfig(local).ok).toBe(false);
    expect(readAdapterConfig({ ...local, ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }).ok).toBe(true);
    expect(
      readAdapterConfig({
        VERITY_WEB_SEARCH_ENDPOINT: 'http://169.254.169.254/',
        ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      }).ok,
    ).toBe(false);
  });

  it.each(['0', '31', '1.5', '-1', '10s'])('refuses the timeout %s', (timeout) => {
    expect(readAdapterConfig({ ...base, VERITY_WEB_SEARCH_TIMEOUT_SECONDS: timeout }).ok).toBe(false);
  });

  it('refuses header-breaking key and user agent values without echoing them', () => {
    const result = readAdapterConfig({
      ...base,
      VERITY_WEB_SEARCH_API_KEY: 'abc\r\nX-Evil: 1',
      VERITY_WEB_SEARCH_USER_AGENT: 'ua\nx',
    });
    expect(result.ok).toBe(false);
    const text = !result.ok ? result.errors.join(' ') : '';
    expect(text).toMatch(/VERITY_WEB_SEARCH_API_KEY/);
    expect(text).toMatch(/VERITY_WEB_SEARCH_USER_AGENT/);
    expect(text).not.toContain('X-Evil');
  });
});

describe('searchUrl', () => {
  it('replaces q and format, keeps the other parameters', () => {
    const url = searchUrl(
      new URL('https://s.example.com/search?q=old&format=html&language=de&format=rss'),
      'a b&c',
    );
    expect(url.searchParams.getAll('q')).toEqual(['a b&c']);
    expect(url.searchParams.getAll('format')).toEqual(['json']);
    expect(url.searchParams.get('language')).toBe('de');
  });
});
