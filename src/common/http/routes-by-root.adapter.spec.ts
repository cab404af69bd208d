import { apiRootOf } from './routes-by-root.adapter';

describe('apiRootOf', () => {
  it('answers the first segment after the API prefix, lowercased as Express matches', () => {
    expect(apiRootOf('/api/v1.0/auth/me')).toBe('auth');
    expect(apiRootOf('/api/v1.0/catalog/spaces/:slug/products')).toBe('catalog');
    expect(apiRootOf('/api/v1.0/AUTH/me')).toBe('auth');
    expect(apiRootOf('/API/V1.0/Auth/me')).toBe('auth');
    expect(apiRootOf('/api/v1.0/openapi.json')).toBe('openapi.json');
    expect(apiRootOf('/api/v1.0/:slug/x')).toBe(':slug');
  });

  it('answers null outside the prefix', () => {
    expect(apiRootOf('/api/v1.0/')).toBeNull();
    expect(apiRootOf('/api/v1.0')).toBeNull();
    expect(apiRootOf('/auth/me')).toBeNull();
    expect(apiRootOf('/api/v2.0/auth/me')).toBeNull();
    expect(apiRootOf('/')).toBeNull();
  });
});
