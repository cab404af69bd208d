/** Vectors are plain number arrays on the way in and out, Float32 in storage (`real[]`). */
export type Vector = ArrayLike<number>;

export function norm(vector: Vector): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  return Math.sqrt(sum);
}

/** The unit vector in the same direction; a zero vector stays zero (it matches nothing). */
export function l2Normalize(vector: Vector): number[] {
  const length = norm(vector);
  const out = new Array<number>(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = length > 0 ? vector[i] / length : 0;
  return out;
}

export function dot(a: Vector, b: Vector): number {
  if (a.length !== b.length) throw new Error(`Vectors of ${a.length} and ${b.length} dimensions do not mix.`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** Cosine similarity in [-1, 1]; 0 when either vector is zero. */
export function cosine(a: Vector, b: Vector): number {
  const lengths = norm(a) * norm(b);
  return lengths === 0 ? 0 : dot(a, b) / lengths;
}

/** True when every component is a finite number (what a provider must answer). */
export function isFiniteVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((x) => typeof x === 'number' && Number.isFinite(x));
}

/**
 * A PostgreSQL array literal (`{0.1,-0.2}`) for `::real[]`. Seven significant
 * digits is what a float4 holds, and keeps the text short.
 */
export function realArrayLiteral(vector: Vector): string {
  const parts = new Array<string>(vector.length);
  for (let i = 0; i < vector.length; i++) parts[i] = vector[i] === 0 ? '0' : vector[i].toPrecision(7);
  return `{${parts.join(',')}}`;
}

/** The pgvector text form (`[0.1,-0.2]`). */
export function pgvectorLiteral(vector: Vector): string {
  return `[${realArrayLiteral(vector).slice(1, -1)}]`;
}

/**
 * A `real[]` in PostgreSQL's binary array format (`array_send`), read
 * without the text parser: dimensions, null flag, element type, then per
 * dimension its length and lower bound, then per element its byte length
 * and the big-endian float4. Nulls read as 0 (stored vectors have none).
 */
export function decodeRealArray(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dimensionCount = view.getInt32(0);
  if (dimensionCount === 0) return new Float32Array(0);
  if (dimensionCount !== 1)
    throw new Error(`Expected a one-dimensional array, got ${dimensionCount} dimensions.`);
  const length = view.getInt32(12);
  const out = new Float32Array(length);
  let offset = 20;
  for (let i = 0; i < length; i++) {
    const size = view.getInt32(offset);
    offset += 4;
    if (size === -1) continue;
    out[i] = view.getFloat32(offset);
    offset += size;
  }
  return out;
}
