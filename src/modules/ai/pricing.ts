/** USD per million tokens, input and output, for models whose list price is known. */
const PRICES: Record<string, { input: number; output: number }> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-3-5-sonnet': { input: 3, output: 15 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-opus-4': { input: 15, output: 75 },
};

export interface Cost {
  usd: number;
  /** False when the model is not in the price table: its calls are counted at 0 USD. */
  priced: boolean;
}

/** The price entry for a model name, ignoring dated suffixes (`gpt-4o-2024-08-06`, `claude-3-5-haiku-20241022`). */
function priceOf(model: string): { input: number; output: number } | undefined {
  const name = model.toLowerCase();
  if (PRICES[name]) return PRICES[name];
  const candidates = Object.keys(PRICES).filter((key) => name.startsWith(`${key}-`) || name === key);
  // The longest match wins, so gpt-4o-mini-… is not priced as gpt-4o.
  const best = candidates.sort((a, b) => b.length - a.length)[0];
  return best ? PRICES[best] : undefined;
}

export function costOf(model: string, inputTokens: number, outputTokens: number): Cost {
  const price = priceOf(model);
  if (!price) return { usd: 0, priced: false };
  const usd = (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
  return { usd: Math.round(usd * 1e6) / 1e6, priced: true };
}
