const composed = new Map<string, Map<string, string>>();

/**
 * `template` with its `placeholder` replaced by `fill`, composed once per
 * distinct pair and then answered as the same string. The hot statements
 * are named prepared statements keyed by their text (PreparedQueries): a
 * text composed on every request would be scanned, copied and hashed again
 * each time, where a kept string's hash is computed once. For a bounded set
 * of fills only (the variants of one statement), never for values.
 */
export function composedText(template: string, placeholder: string, fill: string): string {
  let byFill = composed.get(template);
  if (!byFill) {
    byFill = new Map();
    composed.set(template, byFill);
  }
  let text = byFill.get(fill);
  if (text === undefined) {
    // A function, so that `$` patterns in the fill (`$$`, `$&`) are kept as written.
    text = template.replace(placeholder, () => fill);
    byFill.set(fill, text);
  }
  return text;
}
