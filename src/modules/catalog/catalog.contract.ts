/*
 * The SQL other modules may embed from the catalog: its declared contract.
 * Policies compile rules into one set-based statement per policy over the
 * governance read model, so they need the read model as SQL, not as pages
 * (policies/policy-sql.ts). The definitions below are the ones
 * ProductReadModelQueries reads pages with; keep them in step.
 * Indexes: products (space_id, id) for the scan of a space, the metadata
 * tables' primary keys for the joins, product_roles' primary key
 * (product_id, user_id, role) and users' primary key for the people.
 */

/** A product of the governance read model, as `products p` in a statement. */
export const GOVERNED_PRODUCT_TABLE = 'products p';

/** The joins a column of the read model needs, by name; each joins at most one row. */
export const GOVERNED_PRODUCT_JOINS = {
  criticality: 'LEFT JOIN criticality_levels crit ON crit.id = p.criticality_id',
  sensitivity: 'LEFT JOIN sensitivity_levels sens ON sens.id = p.sensitivity_id',
  maintenance_status: 'LEFT JOIN maintenance_statuses maint ON maint.id = p.maintenance_status_id',
} as const;

export type GovernedProductJoin = keyof typeof GOVERNED_PRODUCT_JOINS;

/** The read model's scalar columns over `p` (and the join they need), as GovernedProduct names them. */
export const GOVERNED_PRODUCT_COLUMNS: Record<string, { sql: string; join?: GovernedProductJoin }> = {
  id: { sql: 'p.id::text' },
  name: { sql: 'p.name' },
  description: { sql: 'p.description' },
  product_type: { sql: 'p.product_type' },
  domain: { sql: 'p.domain' },
  tags: { sql: 'p.tags' },
  criticality: { sql: 'crit.name', join: 'criticality' },
  sensitivity: { sql: 'sens.name', join: 'sensitivity' },
  maintenance_status: { sql: 'maint.slug', join: 'maintenance_status' },
  sla_freshness_minutes: { sql: 'p.sla_freshness_minutes' },
  attributes: { sql: 'p.attributes' },
  created_at: { sql: 'p.created_at' },
  updated_at: { sql: 'p.updated_at' },
};

/**
 * The owners or stewards of the product `productId` (an SQL expression), as
 * a subquery selecting `id` (text), `email` and `full_name` rows, as the read
 * model's people.
 */
export function governedPeopleSql(productId: string, role: 'owner' | 'steward'): string {
  return `SELECT u.id::text AS id, u.email,
       concat_ws(' ', NULLIF(u.first_name, ''), NULLIF(u.last_name, '')) AS full_name
  FROM product_roles r JOIN users u ON u.id = r.user_id
 WHERE r.product_id = ${productId} AND r.role = '${role}'`;
}

/**
 * How many owners or stewards the product `productId` has: as many as
 * governedPeopleSql's rows, read from product_roles alone (every role's user
 * exists: product_roles_user_fk cascades), on its primary key.
 */
export function governedPeopleCountSql(productId: string, role: 'owner' | 'steward'): string {
  return `SELECT count(*) FROM product_roles r WHERE r.product_id = ${productId} AND r.role = '${role}'`;
}
