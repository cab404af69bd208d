import { isTimeZone, nextRunAt } from './report-schedule';

describe('nextRunAt', () => {
  it('sends daily at 08:00 in the schedule time zone', () => {
    expect(nextRunAt('daily', 'UTC', new Date('2030-05-10T07:59:00Z')).toISOString()).toBe(
      '2030-05-10T08:00:00.000Z',
    );
    expect(nextRunAt('daily', 'UTC', new Date('2030-05-10T08:00:00Z')).toISOString()).toBe(
      '2030-05-11T08:00:00.000Z',
    );
    expect(nextRunAt('daily', 'America/New_York', new Date('2030-05-10T00:00:00Z')).toISOString()).toBe(
      '2030-05-10T12:00:00.000Z',
    );
  });

  it('follows daylight saving time changes', () => {
    // Berlin moves to summer time on 2026-03-29: 08:00 is 07:00Z before and 06:00Z after.
    expect(nextRunAt('daily', 'Europe/Berlin', new Date('2026-03-28T07:30:00Z')).toISOString()).toBe(
      '2026-03-29T06:00:00.000Z',
    );
    expect(nextRunAt('daily', 'Europe/Berlin', new Date('2026-03-27T12:00:00Z')).toISOString()).toBe(
      '2026-03-28T07:00:00.000Z',
    );
    // And back to winter time on 2026-10-25.
    expect(nextRunAt('daily', 'Europe/Berlin', new Date('2026-10-24T12:00:00Z')).toISOString()).toBe(
      '2026-10-25T07:00:00.000Z',
    );
  });

  it('sends weekly on Monday and monthly on the 1st', () => {
    // 2030-05-10 is a Friday.
    expect(nextRunAt('weekly', 'UTC', new Date('2030-05-10T12:00:00Z')).toISOString()).toBe(
      '2030-05-13T08:00:00.000Z',
    );
    expect(nextRunAt('monthly', 'UTC', new Date('2030-05-10T12:00:00Z')).toISOString()).toBe(
      '2030-06-01T08:00:00.000Z',
    );
    expect(nextRunAt('monthly', 'Asia/Tokyo', new Date('2030-05-31T22:00:00Z')).toISOString()).toBe(
      '2030-05-31T23:00:00.000Z',
    );
  });
});

describe('isTimeZone', () => {
  it('knows IANA names and rejects others', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata']) {
      expect(isTimeZone(zone)).toBe(true);
    }
    for (const zone of ['Mars/Olympus', 'Europe/Atlantis', '', 'not a zone'])
      expect(isTimeZone(zone)).toBe(false);
  });
});
