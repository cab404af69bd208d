import {
  cosine,
  dot,
  isFiniteVector,
  l2Normalize,
  norm,
  pgvectorLiteral,
  realArrayLiteral,
  signatureBits,
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

  it('sketches a vector as its positive then its negative components', () => {
    expect(signatureBits([0.5, 0, -0.2, 0.1])).toBe('10010010');
    const bits = (a: string, b: string) => [...a].filter((bit, i) => bit === '1' && b[i] === '1').length;
    const binaryDot = (query: string, other: string) => {
      const half = query.length / 2;
      return bits(other, query) - bits(other, query.slice(half) + query.slice(0, half));
    };
    const query = signatureBits([0.3, -0.2, 0.5, 0, -0.1, 0.4]);
    const near = signatureBits([0.2, -0.1, 0.6, 0, 0.1, 0.4]);
    const far = signatureBits([-0.3, 0.2, -0.5, 0.1, 0.1, -0.4]);
    expect(binaryDot(query, near)).toBe(3);
    expect(binaryDot(query, far)).toBe(-5);
  });
});
