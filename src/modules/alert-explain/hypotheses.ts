/** One likely cause of an alert, as the model proposes it. */
export interface Hypothesis {
  cause: string;
  /** 0 to 1. */
  confidence: number;
  /** Facts from the context that support the cause. */
  evidence: string[];
}

export const MAX_HYPOTHESES = 5;
const MAX_TEXT = 2_000;
const MAX_EVIDENCE = 10;

/**
 * Checks the model's answer against `{hypotheses: [{cause, confidence,
 * evidence}]}` and answers the hypotheses most confident first, or the
 * reason it does not fit. Evidence given as one string is taken as a list
 * of one; anything else off-contract is refused, never repaired.
 */
export function parseHypotheses(json: unknown): { hypotheses: Hypothesis[] } | { error: string } {
  if (!json || typeof json !== 'object' || Array.isArray(json))
    return { error: 'the answer is not a JSON object' };
  const list = (json as { hypotheses?: unknown }).hypotheses;
  if (!Array.isArray(list)) return { error: '`hypotheses` is not a list' };
  if (!list.length) return { error: '`hypotheses` is empty' };
  if (list.length > MAX_HYPOTHESES) return { error: `more than ${MAX_HYPOTHESES} hypotheses` };
  const hypotheses: Hypothesis[] = [];
  for (const [i, item] of list.entries()) {
    const h = item as Partial<Record<keyof Hypothesis, unknown>> | null;
    if (!h || typeof h !== 'object') return { error: `hypothesis ${i + 1} is not an object` };
    if (typeof h.cause !== 'string' || !h.cause.trim() || h.cause.length > MAX_TEXT) {
      return { error: `hypothesis ${i + 1} has no usable \`cause\`` };
    }
    if (
      typeof h.confidence !== 'number' ||
      !Number.isFinite(h.confidence) ||
      h.confidence < 0 ||
      h.confidence > 1
    ) {
      return { error: `hypothesis ${i + 1} has a \`confidence\` outside 0 to 1` };
    }
    const evidence = typeof h.evidence === 'string' ? [h.evidence] : h.evidence;
    if (
      !Array.isArray(evidence) ||
      evidence.length > MAX_EVIDENCE ||
      !evidence.every((e) => typeof e === 'string' && e.length <= MAX_TEXT)
    ) {
      return { error: `hypothesis ${i + 1} has an \`evidence\` that is not a list of strings` };
    }
    hypotheses.push({ cause: h.cause.trim(), confidence: h.confidence, evidence: evidence as string[] });
  }
  hypotheses.sort((a, b) => b.confidence - a.confidence);
  return { hypotheses };
}
