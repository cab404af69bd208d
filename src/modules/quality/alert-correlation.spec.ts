import {
  acceptsAlerts,
  alertMove,
  alertTypeForCheck,
  CORRELATION_WINDOW_MS,
  highestSeverity,
  incidentMove,
  incidentTitle,
  maxSeverity,
  pickIncident,
} from './alert-correlation';

const now = new Date('2026-05-01T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const HOUR = 3600_000;

describe('severity', () => {
  it('takes the highest', () => {
    expect(maxSeverity('low', 'high')).toBe('high');
    expect(maxSeverity('critical', 'medium')).toBe('critical');
    expect(highestSeverity(['medium', 'low', 'high', 'medium'])).toBe('high');
    expect(highestSeverity(['low'])).toBe('low');
  });
});

describe('correlation', () => {
  it('joins open or investigating incidents opened within six hours', () => {
    expect(acceptsAlerts({ id: 'a', status: 'open', createdAt: ago(HOUR) }, now)).toBe(true);
    expect(acceptsAlerts({ id: 'a', status: 'investigating', createdAt: ago(5 * HOUR) }, now)).toBe(true);
    expect(acceptsAlerts({ id: 'a', status: 'open', createdAt: ago(CORRELATION_WINDOW_MS) }, now)).toBe(true);
    expect(acceptsAlerts({ id: 'a', status: 'open', createdAt: ago(CORRELATION_WINDOW_MS + 1) }, now)).toBe(
      false,
    );
    expect(acceptsAlerts({ id: 'a', status: 'resolved', createdAt: ago(HOUR) }, now)).toBe(false);
  });

  it('picks the most recently opened connected incident', () => {
    const picked = pickIncident(
      [
        { id: 'old', status: 'open', createdAt: ago(3 * HOUR) },
        { id: 'new', status: 'investigating', createdAt: ago(HOUR) },
        { id: 'resolved', status: 'resolved', createdAt: ago(60_000) },
        { id: 'stale', status: 'open', createdAt: ago(7 * HOUR) },
      ],
      now,
    );
    expect(picked?.id).toBe('new');
  });

  it('opens a new incident when none is connected, recent and unresolved', () => {
    expect(pickIncident([], now)).toBeNull();
    expect(
      pickIncident(
        [
          { id: 'stale', status: 'open', createdAt: ago(7 * HOUR) },
          { id: 'done', status: 'resolved', createdAt: ago(HOUR) },
        ],
        now,
      ),
    ).toBeNull();
  });

  it('breaks ties on the opening time by id, so the pick is stable', () => {
    const at = ago(HOUR);
    expect(
      pickIncident(
        [
          { id: 'a', status: 'open', createdAt: at },
          { id: 'b', status: 'open', createdAt: at },
        ],
        now,
      )?.id,
    ).toBe('b');
  });

  it('titles an incident after the alert type and product', () => {
    expect(incidentTitle('freshness_breach', 'orders')).toBe('Freshness breach on orders');
    expect(incidentTitle('quality_check_failed', 'sales.daily')).toBe('Quality check failed on sales.daily');
  });

  it('maps check types to alert types', () => {
    expect(alertTypeForCheck('freshness')).toBe('freshness_breach');
    expect(alertTypeForCheck('schema')).toBe('schema_change');
    expect(alertTypeForCheck('row_count')).toBe('quality_check_failed');
    expect(alertTypeForCheck('sql_assertion')).toBe('quality_check_failed');
  });
});

describe('state moves', () => {
  it('moves incidents freely, setting and clearing resolved_at', () => {
    expect(incidentMove('open', 'investigating')).toBe('none');
    expect(incidentMove('investigating', 'open')).toBe('none');
    expect(incidentMove('open', 'resolved')).toBe('set_resolved');
    expect(incidentMove('investigating', 'resolved')).toBe('set_resolved');
    expect(incidentMove('resolved', 'open')).toBe('clear_resolved');
    expect(incidentMove('resolved', 'investigating')).toBe('clear_resolved');
    expect(incidentMove('resolved', 'resolved')).toBe('none');
  });

  it('acknowledges only open alerts and resolves any unresolved one', () => {
    expect(alertMove('open', 'acknowledge')).toBe('acknowledged');
    expect(alertMove('acknowledged', 'acknowledge')).toBeNull();
    expect(alertMove('resolved', 'acknowledge')).toBeNull();
    expect(alertMove('open', 'resolve')).toBe('resolved');
    expect(alertMove('acknowledged', 'resolve')).toBe('resolved');
    expect(alertMove('resolved', 'resolve')).toBeNull();
  });
});
