import { MalformedModel } from './safetensors';

/** The options of a Hugging Face `BertNormalizer`. */
export interface BertNormalizerOptions {
  cleanText: boolean;
  handleChineseChars: boolean;
  /** Null follows `lowercase`, as in the tokenizers library. */
  stripAccents: boolean | null;
  lowercase: boolean;
}

/** CJK ideographs, which BERT splits into one word each. */
const CJK_RANGES: Array<[number, number]> = [
  [0x4e00, 0x9fff],
  [0x3400, 0x4dbf],
  [0x20000, 0x2a6df],
  [0x2a700, 0x2b73f],
  [0x2b740, 0x2b81f],
  [0x2b920, 0x2ceaf],
  [0xf900, 0xfaff],
  [0x2f800, 0x2fa1f],
];

function isCjk(codePoint: number): boolean {
  return CJK_RANGES.some(([low, high]) => codePoint >= low && codePoint <= high);
}

// The Unicode tests are for non-ASCII characters only: most text is ASCII, and a regular expression per character is slow.
function isBertWhitespace(char: string): boolean {
  if (char === ' ' || char === '\t' || char === '\n' || char === '\r') return true;
  return char.charCodeAt(0) > 0x7f && /\p{Zs}/u.test(char);
}

function isControl(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f || (code > 0x7f && /\p{C}/u.test(char));
}

/** A word (a run of neither whitespace nor punctuation) or one punctuation mark: ASCII punctuation includes symbols such as `$` and `+`. */
const WORD_OR_MARK =
  /[^\s\p{P}\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]+|[\p{P}\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/gu;
/** Text that normalisation leaves as it is but for case: printable ASCII, tabs and line breaks (which pre-tokenisation splits on, as on spaces). */
const PLAIN_ASCII = /^[\x20-\x7e\t\n\r]*$/;
const SURROGATE = /[\ud800-\udfff]/;
/** Words remembered with their pieces; the cache is emptied when full (texts repeat their words). */
const CACHE_LIMIT = 50_000;

/**
 * A WordPiece tokenizer read from a Hugging Face `tokenizer.json` with BERT
 * normalisation and pre-tokenisation: text is cleaned (control characters
 * dropped, whitespace unified), CJK ideographs set apart, accents stripped
 * and case folded (as configured), split on whitespace and punctuation, and
 * each word cut greedily into the longest vocabulary pieces, later pieces
 * carrying the continuing-subword prefix (`##`). A word that cannot be cut
 * (or is too long) becomes the unknown token. No special tokens are added.
 */
export class WordPieceTokenizer {
  private constructor(
    private readonly vocab: Map<string, number>,
    readonly unkId: number,
    private readonly prefix: string,
    private readonly maxCharsPerWord: number,
    private readonly normalizer: BertNormalizerOptions | null,
    /** Every id the tokenizer knows (vocabulary and added tokens): the embedding table has one row per id. */
    readonly size: number,
  ) {}

  private readonly cache = new Map<string, number[]>();

  /** Builds the tokenizer from parsed `tokenizer.json`; refuses what it does not support, saying what. */
  static fromJson(json: unknown): WordPieceTokenizer {
    if (!isObject(json)) throw new MalformedModel('tokenizer.json is not a JSON object.');
    const model = json.model;
    if (!isObject(model) || model.type !== 'WordPiece') {
      const type = isObject(model) ? String(model.type) : 'missing';
      throw new MalformedModel(`tokenizer.json: the model is ${type}; only WordPiece is supported.`);
    }
    if (!isObject(model.vocab)) throw new MalformedModel('tokenizer.json: the WordPiece model has no vocab.');
    const vocab = new Map<string, number>();
    const ids = new Set<number>();
    for (const [token, id] of Object.entries(model.vocab)) {
      if (!Number.isSafeInteger(id) || (id as number) < 0) {
        throw new MalformedModel(`tokenizer.json: the id of "${token}" is not a non-negative integer.`);
      }
      vocab.set(token, id as number);
      ids.add(id as number);
    }
    for (const added of Array.isArray(json.added_tokens) ? json.added_tokens : []) {
      if (isObject(added) && Number.isSafeInteger(added.id) && (added.id as number) >= 0) {
        ids.add(added.id as number);
      }
    }
    const unkToken = typeof model.unk_token === 'string' ? model.unk_token : '[UNK]';
    const unkId = vocab.get(unkToken);
    if (unkId === undefined) {
      throw new MalformedModel(`tokenizer.json: the unknown token "${unkToken}" is not in the vocab.`);
    }
    const prefix =
      typeof model.continuing_subword_prefix === 'string' ? model.continuing_subword_prefix : '##';
    const maxChars = Number.isSafeInteger(model.max_input_chars_per_word)
      ? (model.max_input_chars_per_word as number)
      : 100;
    let size = 0;
    for (const id of ids) size = Math.max(size, id + 1);
    if (size !== ids.size) {
      throw new MalformedModel(`tokenizer.json: the token ids are not 0..${ids.size - 1} without gaps.`);
    }
    checkPreTokenizer(json.pre_tokenizer);
    return new WordPieceTokenizer(vocab, unkId, prefix, maxChars, normalizerOf(json.normalizer), size);
  }

  /** Token ids of a text, the unknown token included where a word has no pieces. */
  encode(text: string): number[] {
    const ids: number[] = [];
    for (const word of this.preTokenize(this.normalize(text))) {
      let pieces = this.cache.get(word);
      if (!pieces) {
        pieces = this.pieces(word);
        if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
        this.cache.set(word, pieces);
      }
      for (const id of pieces) ids.push(id);
    }
    return ids;
  }

  normalize(text: string): string {
    const options = this.normalizer;
    if (!options) return text;
    if (PLAIN_ASCII.test(text)) return options.lowercase ? text.toLowerCase() : text;
    let out = text;
    if (options.cleanText) {
      let cleaned = '';
      for (const char of out) {
        const code = char.codePointAt(0)!;
        if (code === 0 || code === 0xfffd) continue;
        if (isBertWhitespace(char)) cleaned += ' ';
        else if (!isControl(char)) cleaned += char;
      }
      out = cleaned;
    }
    if (options.handleChineseChars) {
      let spaced = '';
      for (const char of out) spaced += isCjk(char.codePointAt(0)!) ? ` ${char} ` : char;
      out = spaced;
    }
    if (options.stripAccents ?? options.lowercase) out = out.normalize('NFD').replace(/\p{Mn}/gu, '');
    if (options.lowercase) out = out.toLowerCase();
    return out;
  }

  /** Words split on whitespace (dropped) and punctuation (each mark a word of its own). */
  preTokenize(text: string): string[] {
    return text.match(WORD_OR_MARK) ?? [];
  }

  /** Greedy longest-match-first WordPiece over the word's characters. */
  pieces(word: string): number[] {
    // Characters, not UTF-16 units: a piece never splits a surrogate pair.
    const chars: ArrayLike<string> = SURROGATE.test(word) ? Array.from(word) : word;
    if (chars.length > this.maxCharsPerWord) return [this.unkId];
    const piece = (start: number, end: number) =>
      typeof chars === 'string'
        ? chars.slice(start, end)
        : Array.prototype.slice.call(chars, start, end).join('');
    const ids: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const candidate = piece(start, end);
        found = this.vocab.get(start > 0 ? this.prefix + candidate : candidate);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) return [this.unkId];
      ids.push(found);
      start = end;
    }
    return ids;
  }
}

function normalizerOf(value: unknown): BertNormalizerOptions | null {
  if (value === null || value === undefined) return null;
  if (!isObject(value) || value.type !== 'BertNormalizer') {
    const type = isObject(value) ? String(value.type) : typeof value;
    throw new MalformedModel(`tokenizer.json: the normalizer is ${type}; only BertNormalizer is supported.`);
  }
  const flag = (name: string, fallback: boolean) =>
    typeof value[name] === 'boolean' ? (value[name] as boolean) : fallback;
  return {
    cleanText: flag('clean_text', true),
    handleChineseChars: flag('handle_chinese_chars', true),
    stripAccents: typeof value.strip_accents === 'boolean' ? value.strip_accents : null,
    lowercase: flag('lowercase', true),
  };
}

function checkPreTokenizer(value: unknown): void {
  if (!isObject(value) || value.type !== 'BertPreTokenizer') {
    const type = isObject(value) ? String(value.type) : String(value);
    throw new MalformedModel(
      `tokenizer.json: the pre-tokenizer is ${type}; only BertPreTokenizer is supported.`,
    );
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
