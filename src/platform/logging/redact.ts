export const REDACTED = '[REDACTED]';

// Keys whose values are secrets wherever they appear in a logged object.
const SECRET_KEY =
  /passw(?:or)?d|passphrase|secret|token|api[-_]?key|authorization|cookie|credential|private[-_]?key|connection[-_]?string|^dsn$/i;

// Secrets written into text: URL credentials, bearer/basic credentials, JWTs, our API keys, key=value pairs.
const TEXT_PATTERNS: [RegExp, string][] = [
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*):[^\s@/]+@/gi, `$1:${REDACTED}@`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  [/\bvk_[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\b(passw(?:or)?d|secret|token|api[-_]?key)(["']?\s*[:=]\s*["']?)[^\s"'&,;]+/gi, `$1$2${REDACTED}`],
];

// A quick pre-check so that ordinary lines skip the patterns altogether.
const MAY_HOLD_SECRET = /:\/\/|bearer|basic|eyJ|vk_|passw|secret|token|api[-_]?key/i;

const MAX_DEPTH = 6;

/** The text with every credential-looking part replaced by [REDACTED]. */
export function redactText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of TEXT_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A copy of a logged value with secrets removed: values under secret-named
 * keys at any depth, and credentials inside strings. Errors become
 * `{type, message, stack}` (redacted) so that nothing they carry escapes.
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[Object]';
  if (value instanceof Error) {
    return {
      type: value.name,
      message: redactText(value.message),
      ...(value.stack ? { stack: redactText(value.stack) } : {}),
    };
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      SECRET_KEY.test(key) && item !== null && item !== undefined ? REDACTED : redactValue(item, depth + 1);
  }
  return out;
}
