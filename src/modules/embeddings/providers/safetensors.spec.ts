import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { float16Bytes, float32Bytes, safetensorsFile } from '../../../../test/support/local-model';
import {
  checkMatrix,
  decodeValues,
  halfToFloat,
  MalformedModel,
  parseSafetensorsHeader,
  readSafetensorsHeader,
  readTensorBytes,
} from './safetensors';

const parse = (file: Buffer) => parseSafetensorsHeader(file, file.length);
const matrix = (dtype: string, shape: number[], data: Buffer) =>
  safetensorsFile({ embeddings: { dtype, shape, data } });
const withLength = (length: bigint, rest: Buffer) => {
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(length);
  return Buffer.concat([head, rest]);
};

describe('safetensors', () => {
  it('reads the header: tensors with dtype, shape and offsets after the header, metadata skipped', () => {
    const file = safetensorsFile({
      embeddings: { dtype: 'F32', shape: [2, 3], data: float32Bytes([1, 2, 3, 4, 5, 6]) },
      extra: { dtype: 'F16', shape: [2], data: float16Bytes([1, 2]) },
    });
    const header = parse(file);
    expect(header.dataStart).toBe(file.length - 28);
    expect(header.tensors).toEqual([
      { name: 'embeddings', dtype: 'F32', shape: [2, 3], begin: 0, end: 24 },
      { name: 'extra', dtype: 'F16', shape: [2], begin: 24, end: 28 },
    ]);
    expect(checkMatrix(header.tensors[0])).toEqual({ rows: 2, columns: 3, dtype: 'F32' });
  });

  it('decodes F32 and F16 little-endian values, aligned or not', async () => {
    const values = [0, 1, -2.5, 0.125, 65504, -0.0625];
    expect(Array.from(await decodeValues(float32Bytes(values), 'F32'))).toEqual(values);
    const unaligned = Buffer.concat([Buffer.alloc(1), float32Bytes(values)]).subarray(1);
    expect(Array.from(await decodeValues(unaligned, 'F32'))).toEqual(values);
    expect(Array.from(await decodeValues(float16Bytes(values), 'F16'))).toEqual(values);
  });

  it('converts every kind of half-precision value', () => {
    expect(halfToFloat(0x3c00)).toBe(1);
    expect(halfToFloat(0xc000)).toBe(-2);
    expect(halfToFloat(0x7bff)).toBe(65504);
    expect(halfToFloat(0x0001)).toBe(2 ** -24); // the smallest subnormal
    expect(halfToFloat(0x0400)).toBe(2 ** -14); // the smallest normal
    expect(halfToFloat(0x7c00)).toBe(Infinity);
    expect(halfToFloat(0xfc00)).toBe(-Infinity);
    expect(halfToFloat(0x7e00)).toBeNaN();
    expect(Object.is(halfToFloat(0x8000), -0)).toBe(true);
  });

  it('reads the header and one tensor from a file without reading the rest', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'safetensors-')), 'model.safetensors');
    writeFileSync(path, matrix('F16', [2, 2], float16Bytes([1, 2, 3, 4])));
    const header = await readSafetensorsHeader(path);
    const bytes = await readTensorBytes(path, header, header.tensors[0]);
    expect(Array.from(await decodeValues(bytes, 'F16'))).toEqual([1, 2, 3, 4]);
  });

  describe('refuses malformed files with a clear error', () => {
    const refuses = (file: Buffer, message: RegExp) => {
      expect(() => parse(file)).toThrow(MalformedModel);
      expect(() => parse(file)).toThrow(message);
    };

    it('a file shorter than the length prefix', () => refuses(Buffer.alloc(5), /too short/));

    it('a header length beyond the file', () =>
      refuses(withLength(1000n, Buffer.from('{}')), /header length 1000 does not fit/));

    it('a header length too large to be real', () =>
      refuses(withLength(2n ** 63n, Buffer.from('{}')), /does not fit/));

    it('a header that is not JSON, or not an object', () => {
      refuses(withLength(5n, Buffer.from('{"a":')), /not valid UTF-8 JSON/);
      refuses(withLength(2n, Buffer.from('[]')), /not a JSON object/);
    });

    it('offsets out of bounds or reversed', () => {
      const bad = (offsets: unknown) =>
        safetensorsFile({}, { embeddings: { dtype: 'F32', shape: [1, 1], data_offsets: offsets } });
      refuses(Buffer.concat([bad([0, 8]), Buffer.alloc(4)]), /fall outside the 4 data bytes/);
      refuses(Buffer.concat([bad([4, 0]), Buffer.alloc(4)]), /fall outside/);
      refuses(bad([0]), /no valid data_offsets/);
      refuses(bad([-1, 0]), /no valid data_offsets/);
    });

    it('a tensor without dtype or shape', () => {
      refuses(safetensorsFile({}, { t: { shape: [1], data_offsets: [0, 0] } }), /no dtype/);
      refuses(
        safetensorsFile({}, { t: { dtype: 'F32', shape: [1.5], data_offsets: [0, 0] } }),
        /no valid shape/,
      );
      refuses(safetensorsFile({}, { t: 'F32' }), /not described by an object/);
    });
  });

  describe('refuses tables that are not an F32/F16 matrix', () => {
    const table = (dtype: string, shape: number[], bytes: number) =>
      checkMatrix({ name: 'embeddings', dtype, shape, begin: 0, end: bytes });

    it('wrong dtype', () => expect(() => table('I64', [2, 2], 32)).toThrow(/I64; only F32 and F16/));
    it('wrong rank', () => {
      expect(() => table('F32', [8], 32)).toThrow(/rank 1/);
      expect(() => table('F32', [2, 2, 2], 32)).toThrow(/rank 3/);
    });
    it('empty', () => expect(() => table('F32', [0, 4], 0)).toThrow(/empty/));
    it('bytes that do not match the shape', () =>
      expect(() => table('F16', [2, 2], 16)).toThrow(/needs 8 bytes, data_offsets give 16/));
  });
});
