import { l2Normalize } from '../vector-math';

/** How much each kind of feature counts: whole words most, their neighbours and spellings less. */
const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.5;
const TRIGRAM_WEIGHT = 0.25;
/** Long texts are cut: the vector is for finding the item, not for storing it. */
const MAX_CHARS = 20_000;

/** FNV-1a, 32 bits, over UTF-16 code units, with a seed per feature kind so that a word and a trigram never share a slot by design. */
function fnv1a(text: string, seed: number): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Lower case, accents folded, split on anything that is not a letter or digit. */
export function tokenize(text: string): string[] {
  return (
    text
      .slice(0, MAX_CHARS)
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * The built-in local embedder (docs/decisions.md#embeddings): word unigrams, word
 * bigrams and character trigrams (of each word, with boundary marks) hashed
 * into `dimensions` slots with a hash-derived sign (so collisions cancel
 * rather than pile up), then L2-normalised. Deterministic, no model, no
 * network: texts that share words and spellings land close together.
 */
export function hashingEmbed(text: string, dimensions: number): number[] {
  const vector = new Float64Array(dimensions);
  const add = (feature: string, seed: number, weight: number) => {
    const hash = fnv1a(feature, seed);
    vector[hash % dimensions] += hash & 0x80000000 ? -weight : weight;
  };
  const words = tokenize(text);
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    add(word, 1, WORD_WEIGHT);
    if (i > 0) add(`${words[i - 1]} ${word}`, 2, BIGRAM_WEIGHT);
    const marked = `<${word}>`;
    for (let j = 0; j + 3 <= marked.length; j++) add(marked.slice(j, j + 3), 3, TRIGRAM_WEIGHT);
  }
  return l2Normalize(vector);
}
