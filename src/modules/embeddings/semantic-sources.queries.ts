import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { SemanticItemType } from './vector.store';

/** One item as the semantic index sees it: the text its vector is made of. */
export interface SourceItem {
  id: string;
  spaceId: string;
  text: string;
  updatedAt: Date;
}

interface SourceRow {
  id: string;
  space_id: string;
  text: string;
  updated_at: Date;
}

// What each item type is embedded from. Standards pages are indexed only while published.
const TEXT: Record<SemanticItemType, { table: string; text: string; where: string }> = {
  product: {
    table: 'products',
    text: `concat_ws(E'\\n', name, product_type, domain, description, array_to_string(tags, ' '))`,
    where: 'TRUE',
  },
  standard_page: {
    table: 'standard_pages',
    text: `concat_ws(E'\\n', title, body)`,
    where: `status = 'published'`,
  },
};

/**
 * Reads the searchable items of other contexts (products, standards pages)
 * for the semantic index, as a read-only query class: the index only needs
 * their text, space and change time, in id order for resumable batches.
 * Raw SQL because the text is an expression per type (concat_ws over
 * columns) over tables of other modules, whose entities this module does not
 * register. Indexes: the products and standard_pages primary keys (by ids,
 * and the id-ordered keyset pages); counts scan the table.
 */
@Injectable()
export class SemanticSourceQueries {
  async byIds(em: EntityManager, type: SemanticItemType, ids: string[]): Promise<SourceItem[]> {
    const { table, text, where } = TEXT[type];
    const rows = (await em.query(
      `SELECT id, space_id, ${text} AS text, updated_at FROM ${table} WHERE id = ANY($1::uuid[]) AND ${where}`,
      [ids],
    )) as SourceRow[];
    return rows.map(toItem);
  }

  /** The next `limit` items after `cursor` in id order. */
  async after(
    em: EntityManager,
    type: SemanticItemType,
    cursor: string | null,
    limit: number,
  ): Promise<SourceItem[]> {
    const { table, text, where } = TEXT[type];
    const rows = (await em.query(
      `SELECT id, space_id, ${text} AS text, updated_at FROM ${table}
        WHERE ${where} AND ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2`,
      [cursor, limit],
    )) as SourceRow[];
    return rows.map(toItem);
  }

  async count(em: EntityManager, type: SemanticItemType): Promise<number> {
    const { table, where } = TEXT[type];
    const [row] = (await em.query(`SELECT count(*)::int AS total FROM ${table} WHERE ${where}`)) as {
      total: number;
    }[];
    return row.total;
  }
}

function toItem(row: SourceRow): SourceItem {
  return { id: row.id, spaceId: row.space_id, text: row.text ?? '', updatedAt: new Date(row.updated_at) };
}

/** Identifies the vector an embedder makes of a text: equal hashes need no new call. */
export function contentHash(fingerprint: string, text: string): string {
  return createHash('sha256').update(fingerprint).update('\n').update(text).digest('hex');
}
