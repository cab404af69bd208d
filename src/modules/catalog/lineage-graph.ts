/** Pure helpers over lineage facts, kept apart from SQL so they can be unit tested. */

/** `ancestor` is upstream of `product` (any number of hops). */
export interface AncestorPair {
  product: string;
  ancestor: string;
}

/**
 * The most upstream product of a set: one that no other member of the set is
 * upstream of. When several qualify (unconnected branches), the one with the
 * most set members downstream of it wins, then the earliest in `ids`.
 */
export function pickMostUpstream(ids: string[], pairs: AncestorPair[]): string | null {
  const members = [...new Set(ids)];
  if (!members.length) return null;
  const inSet = new Set(members);
  const hasAncestorInSet = new Set<string>();
  const descendants = new Map<string, number>();
  for (const { product, ancestor } of pairs) {
    if (product === ancestor || !inSet.has(product) || !inSet.has(ancestor)) continue;
    hasAncestorInSet.add(product);
    descendants.set(ancestor, (descendants.get(ancestor) ?? 0) + 1);
  }
  const roots = members.filter((id) => !hasAncestorInSet.has(id));
  // On a cycle-free graph there is always a root; fall back to the first id defensively.
  if (!roots.length) return members[0];
  let best = roots[0];
  for (const id of roots) {
    if ((descendants.get(id) ?? 0) > (descendants.get(best) ?? 0)) best = id;
  }
  return best;
}
