/** The constant of reciprocal rank fusion (Cormack et al.): damps the weight of the first few ranks. */
export const RRF_K = 60;

export interface Ranked {
  key: string;
}

export interface Fused<T> {
  item: T;
  score: number;
}

/**
 * Reciprocal rank fusion: each list adds 1 / (k + rank) for every item it
 * holds (ranks from 1), so an item found by both lists outranks one found
 * by one list at a similar place. Items are identified by `key`; the first
 * list that holds an item supplies it. Ties keep the order of first appearance.
 */
export function reciprocalRankFusion<T extends Ranked>(lists: T[][], k = RRF_K): Fused<T>[] {
  const fused = new Map<string, { item: T; score: number; order: number }>();
  let order = 0;
  for (const list of lists) {
    const counted = new Set<string>();
    list.forEach((item, index) => {
      // An item listed twice counts at its better rank only.
      if (counted.has(item.key)) return;
      counted.add(item.key);
      const contribution = 1 / (k + index + 1);
      const seen = fused.get(item.key);
      if (seen) seen.score += contribution;
      else fused.set(item.key, { item, score: contribution, order: order++ });
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ item, score }) => ({ item, score }));
}
