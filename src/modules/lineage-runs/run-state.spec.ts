import type { RunState } from './run-event';
import { foldRunEvent, RunFold, RunStep, runDurationMs } from './run-state';

const at = (second: number) => new Date(Date.UTC(2026, 10, 28, 5, 0, second));
const step = (eventType: RunState, second: number, errorMessage: string | null = null): RunStep => ({
  eventType,
  eventTime: at(second),
  errorMessage,
});
const fold = (steps: RunStep[]): RunFold =>
  steps.reduce<RunFold | null>((run, s) => foldRunEvent(run, s), null) as RunFold;

/** Every order of the steps. */
function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

describe('foldRunEvent', () => {
  it('starts a run on START and ends it on COMPLETE, with its duration', () => {
    const run = fold([step('START', 0), step('RUNNING', 5), step('COMPLETE', 30)]);
    expect(run).toMatchObject({ state: 'COMPLETE', startedAt: at(0), endedAt: at(30), errorMessage: null });
    expect(runDurationMs(run)).toBe(30_000);
  });

  it('keeps the error message of a FAIL', () => {
    const run = fold([step('START', 0), step('FAIL', 12, 'division by zero')]);
    expect(run).toMatchObject({ state: 'FAIL', endedAt: at(12), errorMessage: 'division by zero' });
    expect(runDurationMs(run)).toBe(12_000);
  });

  it('never lets a START that arrives after a terminal event revert the state', () => {
    const run = fold([step('FAIL', 10, 'boom'), step('START', 0)]);
    expect(run).toMatchObject({ state: 'FAIL', startedAt: at(0), endedAt: at(10), errorMessage: 'boom' });
    expect(runDurationMs(run)).toBe(10_000);
  });

  it('lets the latest terminal event win, clearing the error when it is a COMPLETE', () => {
    expect(fold([step('FAIL', 10, 'boom'), step('COMPLETE', 20)])).toMatchObject({
      state: 'COMPLETE',
      endedAt: at(20),
      errorMessage: null,
    });
    expect(fold([step('COMPLETE', 20), step('FAIL', 10, 'boom')])).toMatchObject({
      state: 'COMPLETE',
      endedAt: at(20),
      errorMessage: null,
    });
    expect(fold([step('COMPLETE', 10), step('ABORT', 20, 'killed')])).toMatchObject({
      state: 'ABORT',
      errorMessage: 'killed',
    });
  });

  it('breaks a tie of terminal events at the same eventTime towards the failure', () => {
    expect(fold([step('FAIL', 10, 'boom'), step('COMPLETE', 10)]).state).toBe('FAIL');
    expect(fold([step('COMPLETE', 10), step('FAIL', 10, 'boom')]).state).toBe('FAIL');
    expect(fold([step('ABORT', 10), step('FAIL', 10)]).state).toBe('FAIL');
    expect(fold([step('COMPLETE', 10), step('ABORT', 10)]).state).toBe('ABORT');
  });

  it('keeps the earliest START and lets RUNNING follow it', () => {
    const run = fold([step('START', 5), step('RUNNING', 8), step('START', 2)]);
    expect(run).toMatchObject({ state: 'RUNNING', startedAt: at(2), endedAt: null });
    expect(runDurationMs(run)).toBeNull();
  });

  it('lets OTHER name a run nothing else is known of, and nothing more', () => {
    expect(fold([step('OTHER', 3)]).state).toBe('OTHER');
    expect(fold([step('OTHER', 9), step('START', 3)]).state).toBe('START');
    expect(fold([step('START', 3), step('OTHER', 9)]).state).toBe('START');
    expect(fold([step('COMPLETE', 3), step('OTHER', 9)]).state).toBe('COMPLETE');
  });

  it('tracks the first and last event times', () => {
    const run = fold([step('RUNNING', 5), step('COMPLETE', 9), step('START', 1), step('OTHER', 12)]);
    expect(run).toMatchObject({ firstEventTime: at(1), lastEventTime: at(12) });
  });

  it('is idempotent: the same event twice changes nothing', () => {
    const once = fold([step('START', 0), step('FAIL', 10, 'boom')]);
    expect(foldRunEvent(once, step('FAIL', 10, 'boom'))).toEqual(once);
    expect(foldRunEvent(once, step('START', 0))).toEqual(once);
  });

  it('converges to the same run whatever order the events arrive in', () => {
    const steps = [
      step('START', 0),
      step('RUNNING', 4),
      step('FAIL', 10, 'boom'),
      step('COMPLETE', 15),
      step('OTHER', 20),
    ];
    const expected = fold(steps);
    expect(expected).toMatchObject({ state: 'COMPLETE', startedAt: at(0), endedAt: at(15) });
    for (const order of permutations(steps)) expect(fold(order)).toEqual(expected);
  });

  it('gives no duration when the end precedes the start', () => {
    expect(runDurationMs({ startedAt: at(10), endedAt: at(5) })).toBeNull();
  });
});
