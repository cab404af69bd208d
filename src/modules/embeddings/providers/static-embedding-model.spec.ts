import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  float32Bytes,
  safetensorsFile,
  TINY_MODEL_DIMENSIONS,
  TINY_VOCAB,
  writeTinyModel,
} from '../../../../test/support/local-model';
import { cosine, norm } from '../vector-math';
import { MalformedModel } from './safetensors';
import { MAX_TOKENS, meanPool, readModelShape, StaticEmbeddingModel } from './static-embedding-model';

describe('meanPool', () => {
  const table = new Float32Array([1, 0, 0, 0, 3, 4, 0, 2, 0]);

  it('answers the unit vector of the mean of the rows', () => {
    expect(meanPool(table, 3, [1])).toEqual([0, 0.6, 0.8]);
    // The mean of [1, 0, 0] and [0, 2, 0] is [0.5, 1, 0].
    const pooled = meanPool(table, 3, [0, 2]);
    expect(pooled[0]).toBeCloseTo(1 / Math.sqrt(5), 12);
    expect(pooled[1]).toBeCloseTo(2 / Math.sqrt(5), 12);
    expect(pooled[2]).toBe(0);
  });

  it('counts a repeated token as often as it occurs', () => {
    const once = meanPool(table, 3, [0, 2]);
    const twice = meanPool(table, 3, [0, 0, 2]);
    expect(twice[0]).toBeGreaterThan(once[0]);
  });

  it('answers a zero vector when no token counts', () => {
    expect(meanPool(table, 3, [])).toEqual([0, 0, 0]);
  });
});

describe('StaticEmbeddingModel', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'static-model-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('loads a Model2Vec directory and embeds texts into unit vectors of its size', async () => {
    const model = await StaticEmbeddingModel.load(writeTinyModel(root, 'f32'));
    expect(model.dimensions).toBe(TINY_MODEL_DIMENSIONS);
    const vector = model.embed('Invoice ledger');
    expect(vector).toHaveLength(TINY_MODEL_DIMENSIONS);
    expect(norm(vector)).toBeCloseTo(1, 6);
    expect(await readModelShape(join(root, 'f32'))).toEqual({
      vocabSize: TINY_VOCAB.length,
      dimensions: TINY_MODEL_DIMENSIONS,
    });
  });

  it('puts related texts near and unrelated ones far', async () => {
    const model = await StaticEmbeddingModel.load(writeTinyModel(root, 'near'));
    const billing = model.embed('billing and payments');
    expect(cosine(billing, model.embed('the revenue ledger'))).toBeGreaterThan(0.8);
    expect(cosine(billing, model.embed('storm forecast'))).toBeLessThan(0.2);
    expect(cosine(model.embed('rain'), model.embed('wind and weather'))).toBeGreaterThan(0.8);
  });

  it('leaves unknown tokens out and adds no special tokens', async () => {
    const model = await StaticEmbeddingModel.load(writeTinyModel(root, 'unk'));
    expect(model.embed('zebra rain quokka')).toEqual(model.embed('rain'));
    expect(model.embed('zebra')).toEqual(new Array(TINY_MODEL_DIMENSIONS).fill(0));
    expect(model.tokenIds('rain').map((id) => TINY_VOCAB[id])).toEqual(['rain']);
  });

  it('pools at most MAX_TOKENS tokens', async () => {
    const model = await StaticEmbeddingModel.load(writeTinyModel(root, 'long'));
    const text = `${'rain '.repeat(MAX_TOKENS)} invoice`;
    expect(model.tokenIds(text)).toHaveLength(MAX_TOKENS);
    expect(model.embed(text)).toEqual(model.embed('rain'));
  });

  it('gives the same vectors from an F16 table as from F32 (the tiny table is exact in both)', async () => {
    const f32 = await StaticEmbeddingModel.load(writeTinyModel(root, 'f32-again'));
    const f16 = await StaticEmbeddingModel.load(writeTinyModel(root, 'f16', { dtype: 'F16' }));
    for (const text of ['invoice', 'payroll and hiring', 'the clinic']) {
      expect(f16.embed(text)).toEqual(f32.embed(text));
    }
  });

  describe('refuses a directory that is not a usable model', () => {
    const refuses = async (name: string, message: RegExp, options = {}) => {
      const directory = writeTinyModel(root, name, options);
      await expect(StaticEmbeddingModel.load(directory)).rejects.toThrow(MalformedModel);
      await expect(StaticEmbeddingModel.load(directory)).rejects.toThrow(message);
    };

    it('a table with more rows than the vocabulary', () =>
      refuses('rows', /knows \d+ tokens; the embedding table has \d+ rows/, { extraRows: 2 }));

    it('a broken tokenizer.json', () =>
      refuses('tok', /tokenizer.json is not valid JSON/, { tokenizerText: '{' }));

    it('a table of the wrong rank, another tensor beside it, or none', async () => {
      const flat = safetensorsFile({
        embeddings: { dtype: 'F32', shape: [4], data: float32Bytes([1, 2, 3, 4]) },
      });
      await refuses('rank', /rank 1/, { weights: flat });
      const two = safetensorsFile({
        embeddings: { dtype: 'F32', shape: [1, 1], data: float32Bytes([1]) },
        weights: { dtype: 'F32', shape: [1], data: float32Bytes([1]) },
      });
      await refuses('two', /other than "embeddings" \(weights\)/, { weights: two });
      await refuses('none', /no "embeddings" tensor/, { weights: safetensorsFile({}) });
    });

    it('a missing file', async () => {
      const directory = writeTinyModel(root, 'missing');
      rmSync(join(directory, 'tokenizer.json'));
      await expect(StaticEmbeddingModel.load(directory)).rejects.toThrow(/tokenizer.json is missing/);
    });
  });
});
