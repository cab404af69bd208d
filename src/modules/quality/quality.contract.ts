/*
 * The SQL other modules may embed from quality: its declared contract.
 * Policies compile `product.open_incident_count` into their set-based
 * statement (policies/policy-sql.ts); QualityQueries.openIncidentCounts
 * counts the same way for pages of products. Indexes:
 * quality_alerts_product_created_idx (product_id, created_at, incident_id)
 * and the quality_incidents primary key.
 */

/** How many unresolved incidents have an alert on the product `productId` (an SQL expression), as a scalar subquery. */
export function openIncidentCountSql(productId: string): string {
  return `(SELECT count(DISTINCT a.incident_id)
     FROM quality_alerts a JOIN quality_incidents i ON i.id = a.incident_id
    WHERE a.product_id = ${productId} AND i.status <> 'resolved')`;
}
