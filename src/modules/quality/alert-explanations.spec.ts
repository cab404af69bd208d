import { Alert } from './entities/alert.entity';
import { alertFingerprint, EXPLANATION_KEY } from './alert-explanations.service';

function alert(over: Partial<Alert> = {}): Alert {
  return Object.assign(new Alert(), {
    id: 'a1',
    status: 'open',
    severity: 'high',
    message: 'Row count dropped',
    incidentId: 'i1',
    metadata: { metric: 'row_count' },
    updatedAt: new Date('2026-03-02T06:10:00Z'),
    ...over,
  });
}

describe('alertFingerprint', () => {
  it('ignores the cached explanation itself', () => {
    const cached = alert({ metadata: { metric: 'row_count', [EXPLANATION_KEY]: { hypotheses: [] } } });
    expect(alertFingerprint(cached)).toBe(alertFingerprint(alert()));
  });

  it.each([
    ['status', { status: 'acknowledged' as const }],
    ['severity', { severity: 'low' as const }],
    ['message', { message: 'Row count recovered' }],
    ['incident', { incidentId: 'i2' }],
    ['metadata', { metadata: { metric: 'null_rate' } }],
    ['updated_at', { updatedAt: new Date('2026-03-02T06:11:00Z') }],
  ])('changes with the %s', (_what, over) => {
    expect(alertFingerprint(alert(over))).not.toBe(alertFingerprint(alert()));
  });
});
