import { canonicalJson, parseIdempotencyKey, requestFingerprint } from './idempotency-key';

describe('Idempotency-Key', () => {
  it('accepts 1 to 255 printable ASCII characters', () => {
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey(' order 42~ ')).toBe('order 42~');
    expect(parseIdempotencyKey('x'.repeat(255))).toBe('x'.repeat(255));
  });

  it('refuses empty, overlong, non-ASCII, control characters and repeated headers', () => {
    for (const bad of ['', '   ', 'x'.repeat(256), 'clé', 'a\tb', 'a\u0000b']) {
      expect(parseIdempotencyKey(bad)).toBeNull();
    }
    expect(parseIdempotencyKey(['a', 'b'])).toBeNull();
  });

  it('fingerprints bodies by content, not by field order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    const one = requestFingerprint('post', '/api/v1.0/spaces', { name: 'A', description: 'd' });
    expect(requestFingerprint('POST', '/api/v1.0/spaces', { description: 'd', name: 'A' })).toBe(one);
    expect(requestFingerprint('POST', '/api/v1.0/spaces', { name: 'B', description: 'd' })).not.toBe(one);
    expect(requestFingerprint('POST', '/api/v1.0/spaces?x=1', { name: 'A', description: 'd' })).not.toBe(one);
    expect(requestFingerprint('POST', '/a', undefined)).toBe(requestFingerprint('POST', '/a', null));
  });
});
