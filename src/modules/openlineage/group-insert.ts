/**
 * Group commit for concurrent requests: at most `maxInFlight` inserts run at
 * once; the rows of requests arriving meanwhile wait and go in together with
 * the next one, so N concurrent producers cost a few commits per round trip
 * instead of N. Each caller's promise settles with its own rows' insert. If
 * a group insert fails, its requests are inserted one by one, so one bad
 * request never fails another.
 */
export class GroupInsert<T> {
  private readonly queue: { rows: T[]; done: (error?: unknown) => void }[] = [];
  private inFlight = 0;

  constructor(
    private readonly insert: (rows: T[]) => Promise<void>,
    private readonly maxRows: number,
    private readonly maxInFlight: number,
  ) {}

  add(rows: T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ rows, done: (error) => (error === undefined ? resolve() : reject(error)) });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length) {
      const group: typeof this.queue = [];
      let size = 0;
      while (this.queue.length && (!group.length || size + this.queue[0].rows.length <= this.maxRows)) {
        const next = this.queue.shift()!;
        size += next.rows.length;
        group.push(next);
      }
      this.inFlight++;
      void this.flush(group).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async flush(group: { rows: T[]; done: (error?: unknown) => void }[]): Promise<void> {
    try {
      await this.insert(group.flatMap((item) => item.rows));
      for (const item of group) item.done();
    } catch (error) {
      if (group.length === 1) {
        group[0].done(error);
        return;
      }
      for (const item of group) {
        try {
          await this.insert(item.rows);
          item.done();
        } catch (itemError) {
          item.done(itemError);
        }
      }
    }
  }
}
