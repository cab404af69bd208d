import {
  cosine,
  dot,
  isFiniteVector,
  l2Normalize,
  norm,
  pgvectorLiteral,
  realArrayLiteral,
  decodeRealArray,
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

  it('reads the binary form of a real[] (array_send)', () => {
    const values = [0.5, -0.25, 0, 3];
    const bytes = Buffer.alloc(20 + values.length * 8);
    bytes.writeInt32BE(1, 0);
    bytes.writeInt32BE(0, 4);
    bytes.writeInt32BE(700, 8);
    bytes.writeInt32BE(values.length, 12);
    bytes.writeInt32BE(1, 16);
    values.forEach((value, i) => {
      bytes.writeInt32BE(4, 20 + i * 8);
      bytes.writeFloatBE(value, 24 + i * 8);
    });
    expect([...decodeRealArray(bytes)]).toEqual(values);
    expect(decodeRealArray(Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 188]))).toHaveLength(0);
    expect(() => decodeRealArray(Buffer.from([0, 0, 0, 2]))).toThrow(/one-dimensional/);
  });
});
