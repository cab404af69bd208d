/**
 * The `default` instance is the deployment's own database
 * (docs/decisions.md#instances). Its id is fixed so that every database
 * knows it without a lookup, and rows written before instances existed
 * belong to it.
 */
export const DEFAULT_INSTANCE_ID = '00000000-0000-4000-8000-000000000000';
export const DEFAULT_INSTANCE_SLUG = 'default';
