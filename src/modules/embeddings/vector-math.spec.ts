import {
  cosine,
  dot,
  isFiniteVector,
  l2Normalize,
  norm,
  pgvectorLiteral,
  realArrayLiteral,
} from './vector-math';

describe('vector helpers', () => {
  it('normalises to unit length and leaves a zero vector alone', () => {
    expect(l2Normalize([3, 4])).toEqual([0.6, 0.8]);
    expect(norm(l2Normalize([1, 2, 3]))).toBeCloseTo(1, 12);
    expect(l2Normalize([0, 0])).toEqual([0, 0]);
  });

  it('computes dot products and refuses to mix sizes', () => {
    expect(dot([1, 2, 3], [4, 5, 6])).toBe(32);
    expect(() => dot([1], [1, 2])).toThrow(/do not mix/);
  });

  it('computes cosine similarity', () => {
    expect(cosine([1, 0], [1, 0])).toBeCloseTo(1);
    expect(cosine([1, 0], [0, 1])).toBeCloseTo(0);
    expect(cosine([1, 0], [-2, 0])).toBeCloseTo(-1);
    expect(cosine([0, 0], [1, 0])).toBe(0);
  });

  it('checks provider answers', () => {
    expect(isFiniteVector([0.1, -2])).toBe(true);
    expect(isFiniteVector([0.1, 'x'])).toBe(false);
    expect(isFiniteVector([Number.NaN])).toBe(false);
    expect(isFiniteVector('[1]')).toBe(false);
  });

  it('writes PostgreSQL and pgvector literals', () => {
    expect(realArrayLiteral([0.5, 0, -0.25])).toBe('{0.5000000,0,-0.2500000}');
    expect(pgvectorLiteral([0.5, 0])).toBe('[0.5000000,0]');
  });
});
