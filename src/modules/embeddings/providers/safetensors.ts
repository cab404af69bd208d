import { FileHandle, open } from 'node:fs/promises';
import { endianness } from 'node:os';

/** A model file that cannot be used as it is; the message says what is wrong. */
export class MalformedModel extends Error {
  override readonly name = 'MalformedModel';
}

export type TensorDtype = 'F32' | 'F16';
const BYTES_PER_VALUE: Record<TensorDtype, number> = { F32: 4, F16: 2 };

/** One tensor's entry in a safetensors header; offsets are relative to the data after the header. */
export interface TensorEntry {
  name: string;
  dtype: string;
  shape: number[];
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  /** Bytes before the tensor data: the 8-byte length and the JSON header. */
  dataStart: number;
  tensors: TensorEntry[];
}

/** A JSON header larger than this is not a model we load (real ones are a few hundred bytes per tensor). */
const MAX_HEADER_BYTES = 16 * 1024 * 1024;
/** F16 values converted between two yields to the event loop (a few milliseconds of work). */
const F16_CHUNK = 1 << 18;

/**
 * Reads a safetensors header: an unsigned 64-bit little-endian length, then
 * that many bytes of JSON mapping tensor names to `{dtype, shape,
 * data_offsets}` (plus an optional `__metadata__`). `prefix` holds at least
 * the first 8 + length bytes; `fileSize` bounds every tensor's offsets.
 */
export function parseSafetensorsHeader(prefix: Uint8Array, fileSize: number): SafetensorsHeader {
  const length = headerLength(prefix, fileSize);
  if (prefix.length < 8 + length) throw new MalformedModel('model.safetensors: the header is cut short.');
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(prefix.subarray(8, 8 + length)));
  } catch {
    throw new MalformedModel('model.safetensors: the header is not valid UTF-8 JSON.');
  }
  if (!isObject(json)) throw new MalformedModel('model.safetensors: the header is not a JSON object.');
  const dataLength = fileSize - 8 - length;
  const tensors: TensorEntry[] = [];
  for (const [name, entry] of Object.entries(json)) {
    if (name === '__metadata__') continue;
    tensors.push(tensorEntry(name, entry, dataLength));
  }
  return { dataStart: 8 + length, tensors };
}

/** The JSON header's length from the first 8 bytes, refused when it cannot fit in the file. */
export function headerLength(prefix: Uint8Array, fileSize: number): number {
  if (prefix.length < 8 || fileSize < 8)
    throw new MalformedModel('model.safetensors: the file is too short.');
  const length = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
  if (length < 2n || length > BigInt(Math.min(MAX_HEADER_BYTES, fileSize - 8))) {
    throw new MalformedModel(
      `model.safetensors: the header length ${length} does not fit a file of ${fileSize} bytes.`,
    );
  }
  return Number(length);
}

function tensorEntry(name: string, entry: unknown, dataLength: number): TensorEntry {
  const where = `model.safetensors: tensor "${name}"`;
  if (!isObject(entry)) throw new MalformedModel(`${where} is not described by an object.`);
  const { dtype, shape, data_offsets: offsets } = entry;
  if (typeof dtype !== 'string') throw new MalformedModel(`${where} has no dtype.`);
  if (!Array.isArray(shape) || !shape.every(isCount)) {
    throw new MalformedModel(`${where} has no valid shape.`);
  }
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isCount)) {
    throw new MalformedModel(`${where} has no valid data_offsets.`);
  }
  const [begin, end] = offsets as [number, number];
  if (begin > end || end > dataLength) {
    throw new MalformedModel(
      `${where}: data_offsets [${begin}, ${end}] fall outside the ${dataLength} data bytes.`,
    );
  }
  return { name, dtype, shape: shape as number[], begin, end };
}

/** The `[rows, columns]` matrix a tensor must be for an embedding table, in F32 or F16 with exactly its bytes. */
export function checkMatrix(tensor: TensorEntry): { rows: number; columns: number; dtype: TensorDtype } {
  const where = `model.safetensors: tensor "${tensor.name}"`;
  if (tensor.dtype !== 'F32' && tensor.dtype !== 'F16') {
    throw new MalformedModel(`${where} is ${tensor.dtype}; only F32 and F16 are supported.`);
  }
  if (tensor.shape.length !== 2) {
    throw new MalformedModel(
      `${where} has rank ${tensor.shape.length}; a [vocab, dimensions] matrix is needed.`,
    );
  }
  const [rows, columns] = tensor.shape;
  if (!rows || !columns) throw new MalformedModel(`${where} is empty (shape [${rows}, ${columns}]).`);
  const bytes = rows * columns * BYTES_PER_VALUE[tensor.dtype];
  if (tensor.end - tensor.begin !== bytes) {
    throw new MalformedModel(
      `${where}: shape [${rows}, ${columns}] in ${tensor.dtype} needs ${bytes} bytes, data_offsets give ${tensor.end - tensor.begin}.`,
    );
  }
  return { rows, columns, dtype: tensor.dtype };
}

/** Little-endian F32 or F16 bytes as a Float32Array (F16 converted in chunks, yielding between them). */
export async function decodeValues(bytes: Uint8Array, dtype: TensorDtype): Promise<Float32Array> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dtype === 'F32') {
    const count = bytes.byteLength / 4;
    // On little-endian hosts the bytes are the values: no copy when aligned, one copy otherwise.
    if (endianness() === 'LE') {
      // new Uint8Array(bytes) copies (a Buffer's slice() would not).
      const aligned = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes);
      return new Float32Array(aligned.buffer, aligned.byteOffset, count);
    }
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
    return out;
  }
  const count = bytes.byteLength / 2;
  const out = new Float32Array(count);
  const halves = halfTable();
  for (let start = 0; start < count; start += F16_CHUNK) {
    const stop = Math.min(count, start + F16_CHUNK);
    for (let i = start; i < stop; i++) out[i] = halves[view.getUint16(i * 2, true)];
    if (stop < count) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

let halves: Float32Array | null = null;

/** Every binary16 value as a float, indexed by its bits: one lookup per value instead of arithmetic. */
function halfTable(): Float32Array {
  if (!halves) {
    halves = new Float32Array(0x10000);
    for (let bits = 0; bits < 0x10000; bits++) halves[bits] = halfToFloat(bits);
  }
  return halves;
}

/** IEEE 754 binary16 to a number: sign, 5-bit exponent, 10-bit fraction (subnormals, infinities and NaN included). */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** Reads the header of a safetensors file (a few bytes, not the tensors). */
export async function readSafetensorsHeader(path: string): Promise<SafetensorsHeader> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const lengthBytes = new Uint8Array(8);
    const got = await readFully(file, lengthBytes, 0);
    const length = headerLength(lengthBytes.subarray(0, got), size);
    const prefix = new Uint8Array(8 + length);
    return parseSafetensorsHeader(prefix.subarray(0, await readFully(file, prefix, 0)), size);
  } finally {
    await file.close();
  }
}

/** Reads one tensor's bytes (and nothing else) from the file. */
export async function readTensorBytes(
  path: string,
  header: SafetensorsHeader,
  tensor: TensorEntry,
): Promise<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const bytes = new Uint8Array(tensor.end - tensor.begin);
    if ((await readFully(file, bytes, header.dataStart + tensor.begin)) !== bytes.length) {
      throw new MalformedModel(`model.safetensors: tensor "${tensor.name}" is cut short.`);
    }
    return bytes;
  } finally {
    await file.close();
  }
}

/** Fills `into` from `position` on, in as many reads as the file needs; answers the bytes read (fewer at its end). */
async function readFully(file: FileHandle, into: Uint8Array, position: number): Promise<number> {
  let filled = 0;
  while (filled < into.length) {
    const { bytesRead } = await file.read(into, filled, into.length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
