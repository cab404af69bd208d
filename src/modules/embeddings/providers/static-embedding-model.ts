import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  checkMatrix,
  decodeValues,
  MalformedModel,
  readSafetensorsHeader,
  readTensorBytes,
  SafetensorsHeader,
} from './safetensors';
import { WordPieceTokenizer } from './wordpiece-tokenizer';

export const MODEL_FILES = {
  config: 'config.json',
  tokenizer: 'tokenizer.json',
  weights: 'model.safetensors',
} as const;
/** The one tensor of a Model2Vec model: a row per token id. */
export const EMBEDDINGS_TENSOR = 'embeddings';
/** Tokens pooled per text, Model2Vec's default `max_length`: vectors match the ones its Python library makes. */
export const MAX_TOKENS = 512;
/** Long texts are cut before tokenising, as for the hashing embedder. */
const MAX_CHARS = 20_000;

/** What the header says of a model directory, without loading it. */
export interface ModelShape {
  vocabSize: number;
  dimensions: number;
}

/** The embedding table's shape from `model.safetensors`' header; refuses a file that is not a Model2Vec table. */
export async function readModelShape(directory: string): Promise<ModelShape> {
  const { shape } = await readTable(directory);
  return shape;
}

async function readTable(
  directory: string,
): Promise<{ path: string; header: SafetensorsHeader; shape: ModelShape }> {
  const path = join(directory, MODEL_FILES.weights);
  const header = await readSafetensorsHeader(path).catch((error: unknown) => {
    throw asMalformed(error, MODEL_FILES.weights);
  });
  const others = header.tensors.filter((t) => t.name !== EMBEDDINGS_TENSOR).map((t) => t.name);
  if (others.length) {
    // Newer Model2Vec files add per-token weights or a token-to-row mapping; ignoring them would give wrong vectors.
    throw new MalformedModel(
      `model.safetensors holds tensors other than "${EMBEDDINGS_TENSOR}" (${others.join(', ')}); this format version is not supported.`,
    );
  }
  const [table] = header.tensors;
  if (!table) throw new MalformedModel(`model.safetensors has no "${EMBEDDINGS_TENSOR}" tensor.`);
  const { rows, columns } = checkMatrix(table);
  return { path, header, shape: { vocabSize: rows, dimensions: columns } };
}

/**
 * A Model2Vec static embedding model: a WordPiece tokenizer and one row of
 * the embedding table per token. A text's vector is the mean of its tokens'
 * rows (unknown tokens left out, no [CLS]/[SEP]), L2-normalised.
 */
export class StaticEmbeddingModel {
  private constructor(
    private readonly tokenizer: WordPieceTokenizer,
    /** Row-major [vocabSize, dimensions]. */
    private readonly table: Float32Array,
    readonly dimensions: number,
  ) {}

  /** Reads and checks the three files of a model directory; every read is asynchronous. */
  static async load(directory: string): Promise<StaticEmbeddingModel> {
    const config = await readJson(join(directory, MODEL_FILES.config));
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      throw new MalformedModel('config.json is not a JSON object.');
    }
    const { model_type: modelType, hidden_dim: hiddenDim } = config as Record<string, unknown>;
    if (modelType !== undefined && modelType !== 'model2vec') {
      throw new MalformedModel(`config.json: model_type is ${String(modelType)}, not model2vec.`);
    }
    const tokenizer = WordPieceTokenizer.fromJson(await readJson(join(directory, MODEL_FILES.tokenizer)));
    const { path, header, shape } = await readTable(directory);
    if (hiddenDim !== undefined && hiddenDim !== shape.dimensions) {
      throw new MalformedModel(
        `config.json says hidden_dim ${String(hiddenDim)}; the embedding table has ${shape.dimensions} columns.`,
      );
    }
    if (tokenizer.size !== shape.vocabSize) {
      throw new MalformedModel(
        `The tokenizer knows ${tokenizer.size} tokens; the embedding table has ${shape.vocabSize} rows.`,
      );
    }
    const [tensor] = header.tensors;
    const table = await decodeValues(await readTensorBytes(path, header, tensor), checkMatrix(tensor).dtype);
    return new StaticEmbeddingModel(tokenizer, table, shape.dimensions);
  }

  /** Builds a model from parts already in memory (the loader and tests). */
  static of(tokenizer: WordPieceTokenizer, table: Float32Array, dimensions: number): StaticEmbeddingModel {
    if (table.length !== tokenizer.size * dimensions) {
      throw new MalformedModel(`A table of ${table.length} values is not ${tokenizer.size} × ${dimensions}.`);
    }
    return new StaticEmbeddingModel(tokenizer, table, dimensions);
  }

  /** The token ids that count for a text: unknown tokens dropped, at most MAX_TOKENS. */
  tokenIds(text: string): number[] {
    const ids = this.tokenizer.encode(text.slice(0, MAX_CHARS)).filter((id) => id !== this.tokenizer.unkId);
    return ids.slice(0, MAX_TOKENS);
  }

  /** The text's unit vector; a zero vector when no token is known (it matches nothing). */
  embed(text: string): number[] {
    return meanPool(this.table, this.dimensions, this.tokenIds(text));
  }
}

/** The L2-normalised mean of the table's rows for these ids; zero when there are none. */
export function meanPool(table: Float32Array, dimensions: number, ids: number[]): number[] {
  const sum = new Float64Array(dimensions);
  for (const id of ids) {
    const row = id * dimensions;
    for (let j = 0; j < dimensions; j++) sum[j] += table[row + j];
  }
  // The mean's direction is the sum's: dividing by the count first changes nothing after normalising.
  let length = 0;
  for (let j = 0; j < dimensions; j++) length += sum[j] * sum[j];
  length = Math.sqrt(length);
  const out = new Array<number>(dimensions);
  for (let j = 0; j < dimensions; j++) out[j] = length > 0 ? sum[j] / length : 0;
  return out;
}

async function readJson(path: string): Promise<unknown> {
  const name = path.slice(path.lastIndexOf('/') + 1);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw asMalformed(error, name);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedModel(`${name} is not valid JSON.`);
  }
}

/** A missing or unreadable file is a model that cannot be used: say which file and why. */
function asMalformed(error: unknown, file: string): MalformedModel {
  if (error instanceof MalformedModel) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new MalformedModel(`${file} is missing.`);
  return new MalformedModel(
    `${file} could not be read: ${error instanceof Error ? error.message : String(error)}`,
  );
}
