import { versionAtLeast } from './vector.store';

describe('versionAtLeast (pgvector features by extversion)', () => {
  it.each([
    ['0.8.0', true],
    ['0.8.1', true],
    ['0.10.0', true],
    ['1.0', true],
    ['0.8', true],
    ['0.7.4', false],
    ['0.5.1', false],
    ['0.7', false],
  ])('%s has iterative scans: %s', (version, expected) => {
    expect(versionAtLeast(version, '0.8.0')).toBe(expected);
  });

  it('compares numerically, not as text, and ignores suffixes', () => {
    expect(versionAtLeast('0.10.0', '0.9.0')).toBe(true);
    expect(versionAtLeast('0.8.0-dev', '0.8.0')).toBe(true);
    expect(versionAtLeast('0.5.0', '0.5')).toBe(true);
  });
});
