import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { NotFound } from '../../common/errors/domain-error';
import { ProductResponse } from './dto/product-responses.dto';
import { DatasetIdentity } from './entities/dataset-identity.entity';
import { GovernanceRole, ProductRole } from './entities/product-role.entity';
import { Product } from './entities/product.entity';
import { GovernanceProductRow, ProductReadModelQueries } from './product-read-model.queries';
import { ProductQueries } from './products.queries';

export interface GovernedPerson {
  id: string;
  email: string;
  full_name: string;
}

/** Owner and steward ids of a product, for modules that notify them. */
export interface ProductGovernance {
  productId: string;
  ownerIds: string[];
  stewardIds: string[];
}

/**
 * The product read model for governance (policy rules, reports): the
 * product's fields with metadata value names and its owners and stewards
 * with their emails.
 */
export type GovernedProduct = Omit<GovernanceProductRow, 'sort_key'> & {
  owners: GovernedPerson[];
  stewards: GovernedPerson[];
};

/**
 * What other modules (quality, policies, reports, risks, tickets, ...) read of
 * the catalog. One signature rule: the executor `em: EntityManager` comes
 * first and required, then the arguments. Batch reads of whole spaces (policy
 * evaluation, reports) are keyset pages on the (space, lower(name)) unique
 * index, and the people of a page in one more query on the product_roles key;
 * never one query per product. The catalog's writes for other modules stay in
 * ProductsService; its routes are ProductsService's.
 */
@Injectable()
export class ProductDirectoryService {
  constructor(
    private readonly queries: ProductReadModelQueries,
    private readonly productQueries: ProductQueries,
  ) {}

  /**
   * The products carrying these OpenLineage dataset identities in the space,
   * by `namespace` + NUL + `name` (the dataset_identities primary key).
   */
  async datasetProducts(
    em: EntityManager,
    spaceId: string,
    identities: { namespace: string; name: string }[],
  ): Promise<Map<string, string>> {
    if (!identities.length) return new Map();
    const rows = await em
      .getRepository(DatasetIdentity)
      .createQueryBuilder('i')
      .select(['i.namespace', 'i.name', 'i.productId'])
      .where('i.spaceId = :spaceId', { spaceId })
      .andWhere('(i.namespace, i.name) IN (SELECT * FROM unnest(:namespaces::text[], :names::text[]))', {
        namespaces: identities.map((identity) => identity.namespace),
        names: identities.map((identity) => identity.name),
      })
      .getMany();
    return new Map(rows.map((row) => [datasetKey(row), row.productId]));
  }

  /** The `attributes.schema.columns` of these products of the space (absent: none recorded). */
  async datasetColumns(
    em: EntityManager,
    spaceId: string,
    productIds: string[],
  ): Promise<Map<string, { name: string; type: string | null }[]>> {
    if (!productIds.length) return new Map();
    // Only the columns, not the whole attributes: a batch of OpenLineage events asks for hundreds of products.
    const rows = await em
      .getRepository(Product)
      .createQueryBuilder('p')
      .select('p.id', 'id')
      .addSelect(`p.attributes -> 'schema' -> 'columns'`, 'columns')
      .where('p.spaceId = :spaceId AND p.id IN (:...productIds)', { spaceId, productIds })
      .getRawMany<{ id: string; columns: unknown }>();
    const found = new Map<string, { name: string; type: string | null }[]>();
    for (const row of rows) {
      if (Array.isArray(row.columns))
        found.set(row.id, row.columns as { name: string; type: string | null }[]);
    }
    return found;
  }

  /** Up to `limit` products of the space in name order after `afterKey` (the last page's `cursor`). */
  async page(
    em: EntityManager,
    spaceId: string,
    afterKey: string | null,
    limit: number,
  ): Promise<{ items: GovernedProduct[]; cursor: string | null }> {
    const rows = await this.queries.pageByName(em, spaceId, afterKey, limit);
    const items = await this.withPeople(em, rows);
    return { items, cursor: rows.length === limit ? rows[rows.length - 1].sort_key : null };
  }

  /**
   * Up to `limit` products of the space in id order after `afterId` (on the (space, id)
   * index), so that a caller can read its own rows for the same id range alongside.
   */
  async pageById(
    em: EntityManager,
    spaceId: string,
    afterId: string | null,
    limit: number,
  ): Promise<GovernedProduct[]> {
    const rows = await this.queries.pageById(em, spaceId, afterId, limit);
    return this.withPeople(em, rows);
  }

  /** The products of the space among `ids`, in name order. */
  async inSpace(em: EntityManager, spaceId: string, ids: string[]): Promise<GovernedProduct[]> {
    if (!ids.length) return [];
    const rows = await this.queries.inSpace(em, spaceId, ids);
    return this.withPeople(em, rows);
  }

  /** How many products the space holds (its product counter, else a count). */
  async count(em: EntityManager, spaceId: string): Promise<number> {
    return this.queries.count(em, spaceId);
  }

  /** The product read model, or 404 when the product is not in the space. */
  async getInSpace(em: EntityManager, spaceId: string, productId: string): Promise<ProductResponse> {
    const product = await this.productQueries.one(em, spaceId, productId);
    if (!product) throw new NotFound('product', productId);
    return product;
  }

  /** Read models of the products that exist among `ids`, in no particular order. */
  findByIds(em: EntityManager, ids: string[]): Promise<ProductResponse[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.productQueries.byIds(em, ids);
  }

  /** Id and name of the products that exist among `ids` (in `spaceId` only, when given), by name. */
  async namesOf(em: EntityManager, ids: string[], spaceId?: string): Promise<{ id: string; name: string }[]> {
    if (!ids.length) return [];
    return this.productQueries.namesOf(em, ids, spaceId ?? null);
  }

  /** Every governance role in the given spaces (all spaces when null), with the product's name. */
  async governanceRolesIn(
    em: EntityManager,
    spaceIds: string[] | null,
  ): Promise<
    { spaceId: string; productId: string; productName: string; userId: string; role: GovernanceRole }[]
  > {
    const qb = em
      .getRepository(ProductRole)
      .createQueryBuilder('r')
      .innerJoin(Product, 'p', 'p.id = r.product_id')
      .select(['p.space_id AS "spaceId"', 'p.id AS "productId"', 'p.name AS "productName"'])
      .addSelect(['r.user_id AS "userId"', 'r.role AS role'])
      .orderBy('p.name')
      .addOrderBy('r.user_id');
    if (spaceIds) qb.where('p.space_id = ANY(:spaceIds)', { spaceIds });
    return qb.getRawMany();
  }

  /** Whether the user created a product or holds a governance role on one (the onboarding checklist). */
  async isInvolvedInAnyProduct(em: EntityManager, userId: string): Promise<boolean> {
    return this.productQueries.isInvolvedInAnyProduct(em, userId);
  }

  /** Product ids by name in one space (names are unique per space). */
  async idsByName(em: EntityManager, spaceId: string, names: string[]): Promise<Map<string, string>> {
    if (!names.length) return new Map();
    const rows = await this.productQueries.idsByName(em, spaceId, names);
    return new Map(rows.map((row) => [row.name, row.id]));
  }

  /** Owner and steward ids per product (products without any are left out). */
  async ownersAndStewardsOf(em: EntityManager, productIds: string[]): Promise<ProductGovernance[]> {
    if (!productIds.length) return [];
    const roles = await em
      .getRepository(ProductRole)
      .createQueryBuilder('r')
      .where('r.productId = ANY(:productIds)', { productIds })
      .getMany();
    const byProduct = new Map<string, ProductGovernance>();
    for (const role of roles) {
      const entry = byProduct.get(role.productId) ?? {
        productId: role.productId,
        ownerIds: [],
        stewardIds: [],
      };
      (role.role === 'owner' ? entry.ownerIds : entry.stewardIds).push(role.userId);
      byProduct.set(role.productId, entry);
    }
    return [...byProduct.values()];
  }

  private async withPeople(em: EntityManager, rows: GovernanceProductRow[]): Promise<GovernedProduct[]> {
    if (!rows.length) return [];
    const people = await this.queries.people(
      em,
      rows.map((r) => r.id),
    );
    const byProduct = new Map<string, { owners: GovernedPerson[]; stewards: GovernedPerson[] }>();
    for (const p of people) {
      const entry = byProduct.get(p.product_id) ?? { owners: [], stewards: [] };
      (p.role === 'owner' ? entry.owners : entry.stewards).push({
        id: p.id,
        email: p.email,
        full_name: p.full_name,
      });
      byProduct.set(p.product_id, entry);
    }
    return rows.map(({ sort_key: _key, ...row }) => ({
      ...row,
      owners: byProduct.get(row.id)?.owners ?? [],
      stewards: byProduct.get(row.id)?.stewards ?? [],
    }));
  }
}

/** The key `datasetProducts` answers by. */
export function datasetKey(identity: { namespace: string; name: string }): string {
  return `${identity.namespace}\u0000${identity.name}`;
}
