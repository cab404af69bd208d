import { SerialTask } from './serial-task';

describe('SerialTask', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('collapses the kicks that come while a pass runs into one more pass', async () => {
    const release: (() => void)[] = [];
    let passes = 0;
    const task = new SerialTask(
      () => {
        passes++;
        return new Promise<void>((resolve) => release.push(resolve));
      },
      () => undefined,
    );
    task.kick();
    task.kick();
    task.kick();
    expect(passes).toBe(1);
    release.shift()!();
    await tick();
    expect(passes).toBe(2);
    release.shift()!();
    await task.idle();
    expect(passes).toBe(2);
  });

  it('starts an idle pass at once, and the next one only after the gap, joined by the kicks meanwhile', async () => {
    const starts: number[] = [];
    const task = new SerialTask(
      () => {
        starts.push(Date.now());
        return Promise.resolve();
      },
      () => undefined,
      40,
    );
    const first = Date.now();
    task.kick();
    expect(starts).toHaveLength(1);
    await task.idle();
    task.kick();
    task.kick();
    task.kick();
    expect(starts).toHaveLength(1);
    await task.idle();
    expect(starts).toHaveLength(2);
    expect(starts[1] - first).toBeGreaterThanOrEqual(39);
  });

  it('runs no scheduled pass once stopped', async () => {
    let passes = 0;
    const task = new SerialTask(
      () => {
        passes++;
        return Promise.resolve();
      },
      () => undefined,
      30,
    );
    task.kick();
    await task.idle();
    task.kick();
    await task.stop();
    expect(passes).toBe(1);
  });

  it('reports a failed pass and keeps working', async () => {
    const errors: unknown[] = [];
    let passes = 0;
    const task = new SerialTask(
      () => (++passes === 1 ? Promise.reject(new Error('boom')) : Promise.resolve()),
      (error) => errors.push(error),
    );
    task.kick();
    await task.idle();
    task.kick();
    await task.idle();
    expect(passes).toBe(2);
    expect(errors).toHaveLength(1);
  });
});
