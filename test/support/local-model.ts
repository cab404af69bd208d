import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A tiny Model2Vec model for tests: a BERT WordPiece vocabulary of a few
 * dozen tokens and a 16-dimensional table in which the words of one topic
 * share an axis, so related words are near and unrelated ones far apart.
 */
export const TINY_MODEL_DIMENSIONS = 16;

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
/** Words of no topic: a faint shared direction, so they barely move a text's vector. */
const FILLER = [
  'the',
  'of',
  'and',
  'for',
  'by',
  'a',
  'data',
  'daily',
  'report',
  '.',
  ',',
  '-',
  '!',
  '##s',
  '##ing',
];
/** Each topic's words lie along its own axis (the topic's index). */
export const TINY_TOPICS: Record<string, string[]> = {
  finance: ['invoice', 'payment', 'ledger', 'revenue', 'billing', 'refund', 'pay', '##ment', 'cafe'],
  weather: ['weather', 'rain', 'storm', 'forecast', 'temperature', 'wind'],
  people: ['employee', 'salary', 'staff', 'hiring', 'payroll'],
  logistics: ['shipment', 'warehouse', 'truck', 'delivery', 'parcel'],
  health: ['patient', 'clinic', 'doctor', 'hospital'],
};
const FILLER_AXIS = TINY_MODEL_DIMENSIONS - 1;

export const TINY_VOCAB: string[] = [...SPECIAL, ...FILLER, ...Object.values(TINY_TOPICS).flat()];

/** The table row of each token: a unit topic axis plus a small deterministic offset, or a faint filler direction. */
export function tinyTable(): number[][] {
  const topicOf = new Map<string, number>();
  Object.values(TINY_TOPICS).forEach((words, axis) => words.forEach((w) => topicOf.set(w, axis)));
  return TINY_VOCAB.map((token, index) => {
    const row = new Array<number>(TINY_MODEL_DIMENSIONS).fill(0);
    const axis = topicOf.get(token);
    if (axis !== undefined) {
      row[axis] = 1;
      // A token-specific nudge on a free axis: the words of a topic are near, not identical.
      row[8 + (index % 6)] = 0.125 * (1 + (index % 3));
    } else if (!SPECIAL.includes(token)) {
      row[FILLER_AXIS] = 0.0625;
    }
    return row;
  });
}

export interface TinyModelOptions {
  dtype?: 'F32' | 'F16';
  /** Rows added to the table past the vocabulary (a vocabulary-size mismatch when non-zero). */
  extraRows?: number;
  /** Replaces tokenizer.json's text. */
  tokenizerText?: string;
  /** Replaces model.safetensors' bytes. */
  weights?: Buffer;
}

/** The parsed tokenizer.json of the tiny model (Hugging Face tokenizers format, BERT WordPiece). */
export function tinyTokenizerJson(): Record<string, unknown> {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(TINY_VOCAB.map((token, id) => [token, id])),
    },
  };
}

/** A safetensors file of these tensors (little-endian data, offsets in order), with an optional header override. */
export function safetensorsFile(
  tensors: Record<string, { dtype: string; shape: number[]; data: Buffer }>,
  header?: Record<string, unknown>,
): Buffer {
  const entries: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, tensor] of Object.entries(tensors)) {
    entries[name] = {
      dtype: tensor.dtype,
      shape: tensor.shape,
      data_offsets: [offset, offset + tensor.data.length],
    };
    offset += tensor.data.length;
  }
  let json = JSON.stringify(header ?? entries);
  // The format pads the header with spaces to a multiple of 8 bytes.
  json += ' '.repeat((8 - (Buffer.byteLength(json) % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([length, Buffer.from(json), ...Object.values(tensors).map((t) => t.data)]);
}

export function float32Bytes(values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => out.writeFloatLE(v, i * 4));
  return out;
}

/** IEEE 754 binary16, rounded to nearest (normal and zero values only: what the tiny table holds). */
export function float16Bytes(values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 2);
  values.forEach((value, i) => {
    let bits = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
    const magnitude = Math.abs(value);
    if (magnitude !== 0) {
      const exponent = Math.floor(Math.log2(magnitude));
      const fraction = Math.round((magnitude / 2 ** exponent - 1) * 1024);
      bits |= ((exponent + 15) << 10) | fraction;
    }
    out.writeUInt16LE(bits, i * 2);
  });
  return out;
}

/** The tiny model's model.safetensors. */
export function tinyWeights(options: Pick<TinyModelOptions, 'dtype' | 'extraRows'> = {}): Buffer {
  const rows = tinyTable();
  for (let i = 0; i < (options.extraRows ?? 0); i++) rows.push(new Array(TINY_MODEL_DIMENSIONS).fill(0));
  const values = rows.flat();
  const dtype = options.dtype ?? 'F32';
  return safetensorsFile({
    embeddings: {
      dtype,
      shape: [rows.length, TINY_MODEL_DIMENSIONS],
      data: dtype === 'F32' ? float32Bytes(values) : float16Bytes(values),
    },
  });
}

/** Writes the tiny model as `<root>/<name>` (config.json, tokenizer.json, model.safetensors); answers the directory. */
export function writeTinyModel(root: string, name: string, options: TinyModelOptions = {}): string {
  const directory = join(root, name);
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, 'config.json'),
    JSON.stringify({
      model_type: 'model2vec',
      architectures: ['StaticModel'],
      tokenizer_name: 'tiny-test-tokenizer',
      hidden_dim: TINY_MODEL_DIMENSIONS,
      normalize: true,
    }),
  );
  writeFileSync(
    join(directory, 'tokenizer.json'),
    options.tokenizerText ?? JSON.stringify(tinyTokenizerJson()),
  );
  writeFileSync(join(directory, 'model.safetensors'), options.weights ?? tinyWeights(options));
  return directory;
}
