import { createHash } from 'node:crypto';

/**
 * The id an outcome answers with when its row stores none (rows written since
 * migration PolicyOutcomeIdsOnRead): the name-based UUID (RFC 4122 version 5,
 * SHA-1) of the product id in the policy's namespace. One (policy, product)
 * pair always has the same id, as a stored row's id never changed either.
 */
export function policyOutcomeId(policyId: string, productId: string): string {
  const namespace = Buffer.from(policyId.replace(/-/g, ''), 'hex');
  const bytes = createHash('sha1').update(namespace).update(productId.toLowerCase()).digest();
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
