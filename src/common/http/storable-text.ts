import type { FieldError } from '../errors/domain-error';

// PostgreSQL text cannot hold U+0000, and a UTF-16 surrogate without its pair
// has no UTF-8 encoding: either makes the database refuse the whole statement.
// eslint-disable-next-line no-control-regex -- finding the NUL character is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Errors past this many are not listed: one is enough to refuse the request. */
const MAX_REPORTED = 20;

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** A key as it can be shown in an error: with its unstorable characters escaped. */
function visible(key: string): string {
  return JSON.stringify(key).slice(1, -1);
}

function join(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

/**
 * The fields of a parsed JSON body, form or query whose name or string value
 * PostgreSQL could not store, named the way validation errors name them
 * (`config.table`, `tags.1`). Walked without recursion: a body is limited in
 * size, not in depth.
 */
export function unstorableFields(root: unknown, rootName: string): FieldError[] {
  const found: FieldError[] = [];
  const pending: { value: unknown; path: string }[] = [{ value: root, path: '' }];
  while (found.length < MAX_REPORTED) {
    const next = pending.pop();
    if (!next) break;
    const { value, path } = next;
    if (typeof value === 'string') {
      if (!isStorableText(value)) {
        const field = path || rootName;
        found.push({
          field,
          message: `${field} contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored.`,
        });
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const children: { value: unknown; path: string }[] = [];
    for (const [key, child] of Object.entries(value)) {
      if (!isStorableText(key)) {
        const field = join(path, visible(key));
        found.push({
          field,
          message: `The field name ${field} contains a NUL character or an unpaired UTF-16 surrogate.`,
        });
        continue;
      }
      children.push({ value: child, path: join(path, key) });
    }
    // Reversed onto the stack so that errors come out in document order.
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
  return found.slice(0, MAX_REPORTED);
}
