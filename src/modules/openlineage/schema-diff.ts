import type { ColumnChange } from './entities/product-schema-change.entity';

type Column = { name: string; type: string | null };

/** Columns added, removed and retyped from `before` to `after`, each in the order of its list. */
export function diffColumns(
  before: Column[],
  after: Column[],
): { added: ColumnChange[]; removed: ColumnChange[]; changed: ColumnChange[] } {
  const old = new Map(before.map((column) => [column.name, column.type ?? null]));
  const now = new Map(after.map((column) => [column.name, column.type ?? null]));
  return {
    added: after.filter((c) => !old.has(c.name)).map((c) => ({ name: c.name, type: c.type ?? null })),
    removed: before.filter((c) => !now.has(c.name)).map((c) => ({ name: c.name, type: c.type ?? null })),
    changed: after
      .filter((c) => old.has(c.name) && old.get(c.name) !== (c.type ?? null))
      .map((c) => ({ name: c.name, type: c.type ?? null, previous_type: old.get(c.name) ?? null })),
  };
}
