import { isUuid } from '../../common/validation/field.decorators';

/** Space slugs: lowercase letters, digits and hyphens, 2 to 63 characters, not starting with a hyphen. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
export const SLUG_MAX = 63;
// A slug shaped like a UUID would be ambiguous where a space is named by id or slug.
export { isUuid };

/**
 * The slug a name derives to: accents dropped, lowercased, every run of other
 * characters turned into one hyphen, trimmed to 63 characters. A name with
 * too few usable characters gets a `-space` suffix or becomes `space`.
 */
export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = base.slice(0, SLUG_MAX).replace(/-+$/, '');
  if (!cut) return 'space';
  if (cut.length === 1) return `${cut}-space`;
  return isUuid(cut) ? `${cut.slice(0, SLUG_MAX - 6)}-space` : cut;
}

/** `base` with `-n`, shortened so that the result still fits. */
export function withSuffix(base: string, n: number): string {
  const suffix = `-${n}`;
  return `${base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/** The first of `base`, `base-2`, `base-3`, ... that is not taken. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = withSuffix(base, n);
    if (!taken.has(candidate)) return candidate;
  }
}
