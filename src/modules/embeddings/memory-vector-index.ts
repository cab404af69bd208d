import type { SemanticItemType } from './entities/item-embedding.entity';
import type { Vector } from './vector-math';

const TYPE_CODES: Record<SemanticItemType, number> = { product: 1, standard_page: 2 };
const TYPES_BY_CODE: SemanticItemType[] = ['product', 'product', 'standard_page'];
const FREE = 0;
const INITIAL_CAPACITY = 1024;

/** One item the index proposes for an exact score. */
export interface VectorCandidate {
  type: SemanticItemType;
  id: string;
}

export interface CandidateQuery {
  /** Unit length, of the index's size. */
  vector: Vector;
  types: readonly SemanticItemType[];
  spaceIds: readonly string[] | 'all';
  limit: number;
  /** At most this many candidates (with many near-ties, the best approximations win). */
  maxCandidates: number;
}

/**
 * Every vector of one size, in process memory, quantised to 8 bits per
 * component with a scale per vector and stored column by column (one
 * Int8Array per component). A query's approximate scores are accumulated
 * over its non-zero components only: hashed query vectors are sparse, so
 * that is a fraction of the matrix, read sequentially.
 *
 * The approximation errs by at most `scale / 2` per component, so a score
 * errs by at most `maxScale / 2 · Σ|q|`. Every item whose approximate score
 * is within twice that bound of the `limit`-th best is returned: the exact
 * best `limit` are always among the candidates (unless near-ties exceed
 * `maxCandidates`), and the caller scores those exactly.
 */
export class MemoryVectorIndex {
  private capacity = INITIAL_CAPACITY;
  private used = 0;
  private columns: Int8Array[];
  private scales = new Float32Array(INITIAL_CAPACITY);
  private typeCodes = new Uint8Array(INITIAL_CAPACITY);
  private spaceSlots = new Int32Array(INITIAL_CAPACITY);
  private ids: string[] = [];
  private readonly slotsByKey = new Map<string, number>();
  private readonly freeSlots: number[] = [];
  private readonly spaceIds: string[] = [];
  private readonly spaceSlotsById = new Map<string, number>();
  private maxScale = 0;
  private scores = new Float64Array(0);
  private slotBuffer = new Int32Array(0);

  constructor(readonly dimensions: number) {
    this.columns = Array.from({ length: dimensions }, () => new Int8Array(INITIAL_CAPACITY));
  }

  /** Items held. */
  get size(): number {
    return this.slotsByKey.size;
  }

  upsert(type: SemanticItemType, id: string, spaceId: string, vector: Vector): void {
    if (vector.length !== this.dimensions) {
      this.remove(type, id);
      return;
    }
    const key = keyOf(type, id);
    let slot = this.slotsByKey.get(key);
    if (slot === undefined) {
      slot = this.freeSlots.pop() ?? this.nextSlot();
      this.slotsByKey.set(key, slot);
      this.ids[slot] = id;
      this.typeCodes[slot] = TYPE_CODES[type];
    }
    this.spaceSlots[slot] = this.spaceSlotOf(spaceId);
    let largest = 0;
    for (let d = 0; d < this.dimensions; d++) largest = Math.max(largest, Math.abs(vector[d]));
    const scale = largest / 127;
    this.scales[slot] = scale;
    // The stored scale is a float32: bound the error with what is kept, not the float64 computed.
    this.maxScale = Math.max(this.maxScale, this.scales[slot]);
    for (let d = 0; d < this.dimensions; d++) {
      this.columns[d][slot] = scale > 0 ? Math.round(vector[d] / scale) : 0;
    }
  }

  remove(type: SemanticItemType, id: string): void {
    const key = keyOf(type, id);
    const slot = this.slotsByKey.get(key);
    if (slot === undefined) return;
    this.slotsByKey.delete(key);
    this.typeCodes[slot] = FREE;
    this.ids[slot] = '';
    this.freeSlots.push(slot);
  }

  /** The items that may be among the best `limit`, best approximation first. */
  candidates(query: CandidateQuery): VectorCandidate[] {
    const { vector } = query;
    if (vector.length !== this.dimensions || query.limit < 1 || !this.used) return [];
    const allowedTypes = new Uint8Array(TYPES_BY_CODE.length);
    for (const type of query.types) allowedTypes[TYPE_CODES[type]] = 1;
    const allowedSpaces = this.allowedSpaces(query.spaceIds);
    if (!allowedSpaces) return [];

    // Synchronous from here to the end: the scratch buffers are never shared between two queries.
    const slots = this.eligibleSlots(allowedTypes, allowedSpaces);
    const count = slots.length;
    if (!count) return [];
    // Scores by position in `slots`. When only some slots are eligible (a caller who reads a few
    // spaces), only those are read from each column.
    const scores = this.scratchScores(count);
    const everySlot = count === this.used;
    let weight = 0;
    for (let d = 0; d < this.dimensions; d++) {
      const q = vector[d];
      if (q === 0) continue;
      weight += Math.abs(q);
      const column = this.columns[d];
      if (everySlot) for (let i = 0; i < count; i++) scores[i] += q * column[i];
      else for (let i = 0; i < count; i++) scores[i] += q * column[slots[i]];
    }
    for (let i = 0; i < count; i++) scores[i] *= this.scales[slots[i]];
    const floor = kthLargest(scores, count, Math.min(query.limit, count)) - this.maxScale * weight;
    const chosen: number[] = [];
    for (let i = 0; i < count; i++) if (scores[i] >= floor) chosen.push(i);
    chosen.sort((a, b) => scores[b] - scores[a]);
    return chosen.slice(0, Math.max(query.limit, query.maxCandidates)).map((i) => ({
      type: TYPES_BY_CODE[this.typeCodes[slots[i]]],
      id: this.ids[slots[i]],
    }));
  }

  /** The used slots of the allowed types and spaces, ascending (free slots have no allowed type). */
  private eligibleSlots(allowedTypes: Uint8Array, allowedSpaces: Uint8Array): Int32Array {
    if (this.slotBuffer.length < this.used) this.slotBuffer = new Int32Array(this.capacity);
    let count = 0;
    for (let slot = 0; slot < this.used; slot++) {
      if (allowedTypes[this.typeCodes[slot]] && allowedSpaces[this.spaceSlots[slot]])
        this.slotBuffer[count++] = slot;
    }
    return this.slotBuffer.subarray(0, count);
  }

  /** `count` zeroed scores, reusing one buffer. */
  private scratchScores(count: number): Float64Array {
    if (this.scores.length < count) this.scores = new Float64Array(this.capacity);
    const scores = this.scores.subarray(0, count);
    scores.fill(0);
    return scores;
  }

  private allowedSpaces(spaceIds: readonly string[] | 'all'): Uint8Array | null {
    const allowed = new Uint8Array(this.spaceIds.length);
    if (spaceIds === 'all') return allowed.fill(1);
    let any = false;
    for (const id of spaceIds) {
      const slot = this.spaceSlotsById.get(id);
      if (slot !== undefined) {
        allowed[slot] = 1;
        any = true;
      }
    }
    return any ? allowed : null;
  }

  private spaceSlotOf(spaceId: string): number {
    let slot = this.spaceSlotsById.get(spaceId);
    if (slot === undefined) {
      slot = this.spaceIds.length;
      this.spaceIds.push(spaceId);
      this.spaceSlotsById.set(spaceId, slot);
    }
    return slot;
  }

  private nextSlot(): number {
    if (this.used === this.capacity) this.grow();
    return this.used++;
  }

  private grow(): void {
    this.capacity *= 2;
    this.columns = this.columns.map((column) => resized(column, new Int8Array(this.capacity)));
    this.scales = resized(this.scales, new Float32Array(this.capacity));
    this.typeCodes = resized(this.typeCodes, new Uint8Array(this.capacity));
    this.spaceSlots = resized(this.spaceSlots, new Int32Array(this.capacity));
  }
}

function keyOf(type: SemanticItemType, id: string): string {
  return `${TYPE_CODES[type]}${id}`;
}

function resized<T extends Int8Array | Uint8Array | Int32Array | Float32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** The k-th largest of the first `count` scores (k ≥ 1), with a min-heap of k. */
function kthLargest(scores: Float64Array, count: number, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (let slot = 0; slot < count; slot++) {
    const score = scores[slot];
    if (size < k) {
      let i = size++;
      heap[i] = score;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heap[parent] <= heap[i]) break;
        [heap[parent], heap[i]] = [heap[i], heap[parent]];
        i = parent;
      }
    } else if (score > heap[0]) {
      heap[0] = score;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < k && heap[left] < heap[smallest]) smallest = left;
        if (right < k && heap[right] < heap[smallest]) smallest = right;
        if (smallest === i) break;
        [heap[smallest], heap[i]] = [heap[i], heap[smallest]];
        i = smallest;
      }
    }
  }
  return heap[0];
}
