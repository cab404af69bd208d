export interface LruCacheOptions<V> {
  /** The most the entries may weigh in all. */
  capacity: number;
  /** How long an entry is served after it was stored; unset: until it leaves for room. */
  ttlMs?: number;
  /** An entry's weight (default 1: capacity is then a count of entries). */
  weigh?: (value: V) => number;
  clock?: () => number;
}

/**
 * A process-local cache: entries weighing at most `capacity` in all, the
 * least recently used leaving first, none served once older than the TTL.
 * A value heavier than the whole capacity is not kept.
 */
export class LruCache<V> {
  // A Map iterates in insertion order: a use re-inserts, so the first key is the least recently used.
  private readonly entries = new Map<string, { value: V; storedAt: number; weight: number }>();
  private weight = 0;
  private readonly capacity: number;
  private readonly ttlMs: number;
  private readonly weigh: (value: V) => number;
  private readonly clock: () => number;

  constructor({ capacity, ttlMs = Infinity, weigh = () => 1, clock = Date.now }: LruCacheOptions<V>) {
    this.capacity = capacity;
    this.ttlMs = ttlMs;
    this.weigh = weigh;
    this.clock = clock;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The weight of every entry kept. */
  get totalWeight(): number {
    return this.weight;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.remove(key);
    if (this.clock() - entry.storedAt >= this.ttlMs) return undefined;
    this.entries.set(key, entry);
    this.weight += entry.weight;
    return entry.value;
  }

  /** Keeps `value` under `key`; its age counts from `storedAt` (default now). */
  set(key: string, value: V, storedAt = this.clock()): void {
    this.remove(key);
    const weight = this.weigh(value);
    if (weight > this.capacity) return;
    this.entries.set(key, { value, storedAt, weight });
    this.weight += weight;
    while (this.weight > this.capacity) this.remove(this.entries.keys().next().value!);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}
