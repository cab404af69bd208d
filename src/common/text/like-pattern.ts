/** A LIKE/ILIKE pattern matching `text` anywhere, its wildcards (`%`, `_`) and backslashes escaped: user input matches literally. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
