/**
 * Group commit for concurrent requests: while one insert runs, the rows of
 * the requests arriving meanwhile wait and go in together with the next one,
 * so N concurrent producers cost about one commit per round trip instead of
 * N. Each caller's promise settles with its own rows' insert. If a group
 * insert fails, its requests are inserted one by one, so one bad request
 * never fails another.
 */
export class GroupInsert<T> {
  private queue: { rows: T[]; done: (error?: unknown) => void }[] = [];
  private running = false;

  constructor(
    private readonly insert: (rows: T[]) => Promise<void>,
    private readonly maxRows: number,
  ) {}

  add(rows: T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ rows, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length) {
        const group: typeof this.queue = [];
        let size = 0;
        while (this.queue.length && (!group.length || size + this.queue[0].rows.length <= this.maxRows)) {
          const next = this.queue.shift()!;
          size += next.rows.length;
          group.push(next);
        }
        try {
          await this.insert(group.flatMap((item) => item.rows));
          for (const item of group) item.done();
        } catch (error) {
          if (group.length === 1) group[0].done(error);
          else await this.oneByOne(group);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async oneByOne(group: { rows: T[]; done: (error?: unknown) => void }[]): Promise<void> {
    for (const item of group) {
      try {
        await this.insert(item.rows);
        item.done();
      } catch (error) {
        item.done(error);
      }
    }
  }
}
