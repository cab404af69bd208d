import type { RunState } from './run-event';

/**
 * What a run knows after some of its events, in any order. The reducer is a
 * maximum over a total order of events (docs/decisions.md#openlineage-run-state),
 * so applying the same events in any order, or one event twice, gives the
 * same result.
 */
export interface RunFold {
  state: RunState;
  /** The eventTime of the event that set `state`. */
  stateEventTime: Date;
  /** The earliest START seen. */
  startedAt: Date | null;
  /** The eventTime of the winning terminal event. */
  endedAt: Date | null;
  /** The `errorMessage` facet of the winning terminal event (FAIL or ABORT). */
  errorMessage: string | null;
  firstEventTime: Date;
  lastEventTime: Date;
}

export interface RunStep {
  eventType: RunState;
  eventTime: Date;
  errorMessage: string | null;
}

export const TERMINAL_STATES: readonly RunState[] = ['COMPLETE', 'FAIL', 'ABORT'];
export const FAILED_STATES: readonly RunState[] = ['FAIL', 'ABORT'];

/**
 * The order in which events take over a run's state: OTHER only names a run
 * nothing else is known of; any START or RUNNING beats it; any terminal event
 * beats every non-terminal one, whatever the times. Within a rank the later
 * eventTime wins; at the same eventTime the last listed here wins (RUNNING
 * over START, FAIL over ABORT over COMPLETE: a tie never hides a failure).
 */
const PRECEDENCE: Record<RunState, [rank: number, tie: number]> = {
  OTHER: [0, 0],
  START: [1, 0],
  RUNNING: [1, 1],
  COMPLETE: [2, 0],
  ABORT: [2, 1],
  FAIL: [2, 2],
};

export function isTerminal(state: RunState): boolean {
  return TERMINAL_STATES.includes(state);
}

export function isFailed(state: RunState): boolean {
  return FAILED_STATES.includes(state);
}

/** Whether an event (type, time) takes the state over from the current one. */
function wins(type: RunState, time: Date, current: RunState, currentTime: Date): boolean {
  const [rank, tie] = PRECEDENCE[type];
  const [currentRank, currentTie] = PRECEDENCE[current];
  if (rank !== currentRank) return rank > currentRank;
  if (time.getTime() !== currentTime.getTime()) return time.getTime() > currentTime.getTime();
  return tie > currentTie;
}

function earliest(a: Date | null, b: Date): Date {
  return a && a.getTime() <= b.getTime() ? a : b;
}

function latest(a: Date, b: Date): Date {
  return a.getTime() >= b.getTime() ? a : b;
}

/** The run after one more event; `previous` is null for a run's first event. */
export function foldRunEvent(previous: RunFold | null, step: RunStep): RunFold {
  const startedAt =
    step.eventType === 'START'
      ? earliest(previous?.startedAt ?? null, step.eventTime)
      : (previous?.startedAt ?? null);
  const base = previous ?? {
    state: step.eventType,
    stateEventTime: step.eventTime,
    startedAt: null,
    endedAt: null,
    errorMessage: null,
    firstEventTime: step.eventTime,
    lastEventTime: step.eventTime,
  };
  const takesOver =
    !previous || wins(step.eventType, step.eventTime, previous.state, previous.stateEventTime);
  const next: RunFold = {
    ...base,
    startedAt,
    firstEventTime: earliest(base.firstEventTime, step.eventTime),
    lastEventTime: latest(base.lastEventTime, step.eventTime),
  };
  if (takesOver) {
    next.state = step.eventType;
    next.stateEventTime = step.eventTime;
    if (isTerminal(step.eventType)) {
      next.endedAt = step.eventTime;
      next.errorMessage = isFailed(step.eventType) ? step.errorMessage : null;
    }
  }
  return next;
}

/** Milliseconds from the earliest START to the winning terminal event; null unless both are known and in order. */
export function runDurationMs(fold: Pick<RunFold, 'startedAt' | 'endedAt'>): number | null {
  if (!fold.startedAt || !fold.endedAt) return null;
  const ms = fold.endedAt.getTime() - fold.startedAt.getTime();
  return ms >= 0 ? ms : null;
}
