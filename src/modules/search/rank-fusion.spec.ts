import { reciprocalRankFusion, RRF_K } from './rank-fusion';

const items = (...keys: string[]) => keys.map((key) => ({ key }));

describe('reciprocalRankFusion', () => {
  it('scores each item 1 / (k + rank) per list it is in, with k = 60', () => {
    expect(RRF_K).toBe(60);
    const fused = reciprocalRankFusion([items('a', 'b'), items('b', 'c')]);
    expect(fused.map((f) => f.item.key)).toEqual(['b', 'a', 'c']);
    expect(fused[0].score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[1].score).toBeCloseTo(1 / 61, 12);
    expect(fused[2].score).toBeCloseTo(1 / 62, 12);
  });

  it('keeps the order of first appearance on equal scores', () => {
    const fused = reciprocalRankFusion([items('a', 'b'), items('c', 'd')]);
    expect(fused.map((f) => f.item.key)).toEqual(['a', 'c', 'b', 'd']);
  });

  it('answers one list in its own order, and nothing for no lists', () => {
    expect(reciprocalRankFusion([items('x', 'y', 'z')]).map((f) => f.item.key)).toEqual(['x', 'y', 'z']);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
    expect(reciprocalRankFusion([])).toEqual([]);
  });

  it('counts an item listed twice in one list once, at its better rank', () => {
    const fused = reciprocalRankFusion([items('a', 'a', 'b')]);
    expect(fused.map((f) => [f.item.key, f.score])).toEqual([
      ['a', 1 / 61],
      ['b', 1 / 63],
    ]);
  });

  it('takes the item from the first list that holds it, and honours another k', () => {
    const fused = reciprocalRankFusion(
      [[{ key: 'a', from: 'keyword' }], [{ key: 'a', from: 'semantic' }]],
      1,
    );
    expect(fused).toEqual([{ item: { key: 'a', from: 'keyword' }, score: 1 }]);
  });
});
