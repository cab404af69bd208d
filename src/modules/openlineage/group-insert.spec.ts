import { GroupInsert } from './group-insert';

describe('GroupInsert', () => {
  it('inserts the rows of requests arriving during an insert together, then settles each', async () => {
    const calls: number[][] = [];
    let release: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (release = resolve));
    const group = new GroupInsert<number>(
      async (rows) => {
        calls.push(rows);
        if (calls.length === 1) await first;
      },
      100,
      1,
    );
    const a = group.add([1]);
    const b = group.add([2, 3]);
    const c = group.add([4]);
    release();
    await Promise.all([a, b, c]);
    expect(calls).toEqual([[1], [2, 3, 4]]);
  });

  it('keeps a group within maxRows', async () => {
    const calls: number[][] = [];
    let release: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (release = resolve));
    const group = new GroupInsert<number>(
      async (rows) => {
        calls.push(rows);
        if (calls.length === 1) await first;
      },
      3,
      1,
    );
    const all = [group.add([0]), group.add([1, 2]), group.add([3, 4]), group.add([5])];
    release();
    await Promise.all(all);
    expect(calls).toEqual([[0], [1, 2], [3, 4, 5]]);
  });

  it('runs up to maxInFlight inserts at once', async () => {
    const calls: number[][] = [];
    const releases: (() => void)[] = [];
    const group = new GroupInsert<number>(
      async (rows) => {
        calls.push(rows);
        await new Promise<void>((resolve) => releases.push(resolve));
      },
      100,
      2,
    );
    const all = [group.add([0]), group.add([1]), group.add([2]), group.add([3])];
    expect(calls).toEqual([[0], [1]]);
    releases.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([[0], [1], [2, 3]]);
    for (const release of releases.splice(0)) release();
    await Promise.all(all);
  });

  it('retries a failed group one request at a time, failing only the bad one', async () => {
    let release: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const group = new GroupInsert<number>(
      async (rows) => {
        calls++;
        if (calls === 1) await first;
        if (rows.includes(-1)) throw new Error('bad row');
      },
      100,
      1,
    );
    const ok1 = group.add([0]);
    const ok2 = group.add([1]);
    const bad = group.add([-1]);
    const ok3 = group.add([2]);
    release();
    await expect(ok1).resolves.toBeUndefined();
    await expect(ok2).resolves.toBeUndefined();
    await expect(bad).rejects.toThrow('bad row');
    await expect(ok3).resolves.toBeUndefined();
  });
});
