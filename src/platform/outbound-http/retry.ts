/** The wait before retry `attempt` (1-based): exponential from 250 ms, or the provider's Retry-After, capped. */
export function retryDelayMs(
  attempt: number,
  retryAfter: string | undefined,
  capMs: number,
  now = Date.now(),
): number {
  let wait = 250 * 2 ** (attempt - 1);
  if (retryAfter !== undefined) {
    if (/^\d+(\.\d+)?$/.test(retryAfter.trim())) wait = Number(retryAfter) * 1000;
    else {
      const at = Date.parse(retryAfter);
      if (!Number.isNaN(at)) wait = at - now;
    }
  }
  return Math.max(0, Math.min(wait, capMs));
}
