import { randomUUID } from 'node:crypto';
import { MemoryVectorIndex } from './memory-vector-index';
import { dot, l2Normalize } from './vector-math';

/** A deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Unit vectors with most components zero, as the hashing embedder makes them. */
function sparseVector(next: () => number, dimensions: number, nonZero: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (let i = 0; i < nonZero; i++) vector[Math.floor(next() * dimensions)] = next() * 2 - 1;
  return l2Normalize(vector);
}

describe('MemoryVectorIndex', () => {
  const DIMENSIONS = 64;
  const spaces = [randomUUID(), randomUUID(), randomUUID()];

  function filled(count: number, seed = 7, nonZero = 12) {
    const next = random(seed);
    const index = new MemoryVectorIndex(DIMENSIONS);
    const items = Array.from({ length: count }, (_, i) => ({
      id: randomUUID(),
      type: i % 5 === 0 ? ('standard_page' as const) : ('product' as const),
      spaceId: spaces[i % spaces.length],
      vector: sparseVector(next, DIMENSIONS, nonZero),
    }));
    for (const item of items) index.upsert(item.type, item.id, item.spaceId, item.vector);
    return { index, items, next };
  }

  it('proposes the exact best items among its candidates, for sparse and dense queries, past its first growth', () => {
    const { index, items, next } = filled(3000);
    expect(index.size).toBe(3000);
    for (const nonZero of [3, 12, DIMENSIONS]) {
      for (let round = 0; round < 20; round++) {
        const query = sparseVector(next, DIMENSIONS, nonZero);
        const exact = items
          .filter((item) => item.type === 'product')
          .map((item) => ({ id: item.id, score: dot(item.vector, query) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 10);
        const candidates = index.candidates({
          vector: query,
          types: ['product'],
          spaceIds: 'all',
          limit: 10,
          maxCandidates: 1000,
        });
        const proposed = new Set(candidates.map((c) => c.id));
        for (const best of exact) expect(proposed).toContain(best.id);
        // A bound, not a scan: far fewer candidates than items.
        expect(candidates.length).toBeLessThan(items.length / 4);
        expect(candidates.every((c) => c.type === 'product')).toBe(true);
      }
    }
  });

  it('keeps to the spaces and types asked for', () => {
    const { index, items, next } = filled(500);
    const query = sparseVector(next, DIMENSIONS, 12);
    const candidates = index.candidates({
      vector: query,
      types: ['standard_page'],
      spaceIds: [spaces[1]],
      limit: 500,
      maxCandidates: 500,
    });
    const expected = items.filter((item) => item.type === 'standard_page' && item.spaceId === spaces[1]);
    expect(candidates.map((c) => c.id).sort()).toEqual(expected.map((item) => item.id).sort());
    expect(
      index.candidates({
        vector: query,
        types: ['product'],
        spaceIds: [randomUUID()],
        limit: 5,
        maxCandidates: 5,
      }),
    ).toEqual([]);
  });

  it('forgets removed items, reuses their room and follows a move to another space', () => {
    const { index, items, next } = filled(200);
    const [gone, moved] = items;
    index.remove(gone.type, gone.id);
    index.remove(gone.type, gone.id);
    expect(index.size).toBe(199);
    index.upsert(moved.type, moved.id, spaces[2], moved.vector);
    const fresh = { id: randomUUID(), vector: sparseVector(next, DIMENSIONS, 12) };
    index.upsert('product', fresh.id, spaces[0], fresh.vector);
    expect(index.size).toBe(200);

    const everything = (vector: number[], spaceIds: string[] | 'all') =>
      index.candidates({
        vector,
        types: ['product', 'standard_page'],
        spaceIds,
        limit: 300,
        maxCandidates: 300,
      });
    expect(everything(gone.vector, 'all').map((c) => c.id)).not.toContain(gone.id);
    expect(everything(moved.vector, [spaces[2]])[0].id).toBe(moved.id);
    expect(everything(moved.vector, [spaces[0]]).map((c) => c.id)).not.toContain(moved.id);
    expect(everything(fresh.vector, 'all')[0]).toEqual({ type: 'product', id: fresh.id });
  });

  it('drops an item whose new vector has another size, and answers nothing for a query of another size', () => {
    const { index, items } = filled(10);
    index.upsert(items[0].type, items[0].id, items[0].spaceId, [1, 0, 0]);
    expect(index.size).toBe(9);
    expect(
      index.candidates({ vector: [1, 0], types: ['product'], spaceIds: 'all', limit: 5, maxCandidates: 5 }),
    ).toEqual([]);
  });

  it('caps the candidates when many nearly tie, keeping the best approximations', () => {
    const index = new MemoryVectorIndex(4);
    const same = l2Normalize([1, 1, 0, 0]);
    for (let i = 0; i < 50; i++) index.upsert('product', randomUUID(), spaces[0], same);
    const best = randomUUID();
    index.upsert('product', best, spaces[0], l2Normalize([1, 0.9, 0, 0]));
    const candidates = index.candidates({
      vector: l2Normalize([1, 0.9, 0, 0]),
      types: ['product'],
      spaceIds: 'all',
      limit: 3,
      maxCandidates: 5,
    });
    expect(candidates).toHaveLength(5);
    expect(candidates[0].id).toBe(best);
  });
});
