// Schedules and time: parsing what people type, the next run in the configured timezone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeNextRun, graceSeconds, parseDuration, parseSchedule, ScheduleError, type TimeContext } from '../../src/cron/schedule.ts';
import { formatIso, parseIso, resolveTimezone } from '../../src/cron/time.ts';

const at = (iso: string) => Date.parse(iso);
const ctx = (nowIso: string, tz = 'UTC'): TimeContext => ({ now: () => at(nowIso), tz });

describe('time', () => {
  it('formats instants with the zone offset and parses them back', () => {
    const t = at('2026-07-01T12:00:00Z');
    assert.equal(formatIso(t, 'UTC'), '2026-07-01T12:00:00+00:00');
    assert.equal(formatIso(t, 'Europe/Brussels'), '2026-07-01T14:00:00+02:00');
    assert.equal(formatIso(t, 'Asia/Kolkata'), '2026-07-01T17:30:00+05:30');
    assert.equal(formatIso(t, 'America/New_York'), '2026-07-01T08:00:00-04:00');
    for (const tz of ['UTC', 'Europe/Brussels', 'Asia/Kolkata', 'America/New_York']) assert.equal(parseIso(formatIso(t, tz), 'UTC'), t);
  });

  it('reads a timestamp without offset as wall time in the given zone', () => {
    assert.equal(parseIso('2026-01-15T09:00:00', 'Europe/Brussels'), at('2026-01-15T08:00:00Z'));
    assert.equal(parseIso('2026-07-15T09:00', 'Europe/Brussels'), at('2026-07-15T07:00:00Z'));
    assert.equal(parseIso('2026-01-15T09:00:00Z', 'Europe/Brussels'), at('2026-01-15T09:00:00Z'));
    assert.equal(parseIso('2026-01-15T09:00:00.250+01:00', 'UTC'), at('2026-01-15T08:00:00.250Z'));
    assert.equal(parseIso('2026-02-30T09:00:00', 'UTC'), null);
    assert.equal(parseIso('tomorrow', 'UTC'), null);
  });

  it('resolves the timezone from config, then HERMES_TIMEZONE, ignoring invalid names', () => {
    assert.equal(resolveTimezone('Asia/Tokyo', { HERMES_TIMEZONE: 'Europe/Paris' }), 'Asia/Tokyo');
    assert.equal(resolveTimezone('', { HERMES_TIMEZONE: 'Europe/Paris' }), 'Europe/Paris');
    assert.equal(resolveTimezone('Not/AZone', { HERMES_TIMEZONE: 'Europe/Paris' }), 'Europe/Paris');
  });
});

describe('parseSchedule', () => {
  const c = ctx('2026-03-01T10:00:00Z');

  it('"30m", "2h", "1d" and "in 2h" are one-shots after a delay', () => {
    assert.deepEqual(parseSchedule('30m', c), { kind: 'once', run_at: '2026-03-01T10:30:00+00:00', display: 'once in 30m' });
    assert.deepEqual(parseSchedule('2h', c), { kind: 'once', run_at: '2026-03-01T12:00:00+00:00', display: 'once in 2h' });
    assert.equal((parseSchedule('1d', c) as { run_at: string }).run_at, '2026-03-02T10:00:00+00:00');
    assert.deepEqual(parseSchedule('in 2 hours', c), { kind: 'once', run_at: '2026-03-01T12:00:00+00:00', display: 'once in 2 hours' });
  });

  it('"every …" is a repeating interval', () => {
    assert.deepEqual(parseSchedule('every 2h', c), { kind: 'interval', minutes: 120, display: 'every 120m' });
    assert.deepEqual(parseSchedule('every 30m', c), { kind: 'interval', minutes: 30, display: 'every 30m' });
    assert.deepEqual(parseSchedule('Every hour', c), { kind: 'interval', minutes: 60, display: 'every 60m' });
    assert.equal(parseDuration('90 minutes'), 90);
  });

  it('5-field cron expressions, validated', () => {
    assert.deepEqual(parseSchedule('0 9 * * *', c), { kind: 'cron', expr: '0 9 * * *', display: '0 9 * * *' });
    assert.deepEqual(parseSchedule('  */15  * * * MON-FRI ', c), { kind: 'cron', expr: '*/15 * * * MON-FRI', display: '*/15  * * * MON-FRI' });
    assert.throws(() => parseSchedule('61 9 * * *', c), (e: Error) => e instanceof ScheduleError && /Invalid cron expression "61 9 \* \* \*"/.test(e.message));
    assert.throws(() => parseSchedule('0 0 9 * * *', c), /5 standard fields/);
  });

  it('natural weekly and daily phrases become cron expressions', () => {
    assert.equal((parseSchedule('every monday 9am', c) as { expr: string }).expr, '0 9 * * 1');
    assert.equal((parseSchedule('weekdays at 9:30', c) as { expr: string }).expr, '30 9 * * 1-5');
    assert.equal((parseSchedule('every day at noon', c) as { expr: string }).expr, '0 12 * * *');
    assert.equal((parseSchedule('every mon, wed and fri at 6pm', c) as { expr: string }).expr, '0 18 * * 1,3,5');
  });

  it('ISO timestamps are one-shots; without an offset they are in the configured zone', () => {
    const s = parseSchedule('2026-03-05T09:00:00', ctx('2026-03-01T10:00:00Z', 'America/Toronto'));
    assert.deepEqual(s, { kind: 'once', run_at: '2026-03-05T09:00:00-05:00', display: 'once at 2026-03-05 09:00' });
    assert.throws(() => parseSchedule('2026-13-01T09:00', c), /Invalid timestamp/);
  });

  it('rejects anything else with the accepted forms', () => {
    for (const bad of ['', 'sometimes', 'every blue moon', '0m', 'every 0h'])
      assert.throws(() => parseSchedule(bad, c), (e: Error) => e instanceof ScheduleError && /Use one of|Invalid duration|empty/.test(e.message), bad);
  });
});

describe('computeNextRun', () => {
  it('intervals count from the given base', () => {
    const c = ctx('2026-03-01T10:00:00Z');
    assert.equal(computeNextRun({ kind: 'interval', minutes: 90, display: '' }, c), '2026-03-01T11:30:00+00:00');
    assert.equal(computeNextRun({ kind: 'interval', minutes: 90, display: '' }, c, { after: at('2026-03-01T12:00:00Z') }), '2026-03-01T13:30:00+00:00');
  });

  it('cron expressions follow the configured zone, across DST', () => {
    const s = { kind: 'cron' as const, expr: '0 9 * * *', display: '' };
    // Toronto switches to EDT on 2026-03-08: 9:00 local is 14:00Z before and 13:00Z after.
    const before = computeNextRun(s, ctx('2026-03-07T15:00:00Z', 'America/Toronto'))!;
    assert.equal(before, '2026-03-08T09:00:00-04:00');
    assert.equal(at(before), at('2026-03-08T13:00:00Z'));
    assert.equal(computeNextRun(s, ctx('2026-03-06T15:00:00Z', 'America/Toronto')), '2026-03-07T09:00:00-05:00');
    // Strictly after the base.
    assert.equal(computeNextRun(s, ctx('2026-03-07T14:00:00Z', 'America/Toronto')), '2026-03-08T09:00:00-04:00');
  });

  it('one-shots: their time, within a 120 s grace, and never again after running', () => {
    const s = { kind: 'once' as const, run_at: '2026-03-01T10:00:00+00:00', display: '' };
    assert.equal(computeNextRun(s, ctx('2026-03-01T09:00:00Z')), s.run_at);
    assert.equal(computeNextRun(s, ctx('2026-03-01T10:01:59Z')), s.run_at);
    assert.equal(computeNextRun(s, ctx('2026-03-01T10:02:01Z')), null);
    assert.equal(computeNextRun(s, ctx('2026-03-01T09:00:00Z'), { lastRunAt: '2026-03-01T09:00:00+00:00' }), null);
  });

  it('grace is half the period, within 2 minutes and 2 hours', () => {
    const c = ctx('2026-03-01T10:00:00Z');
    assert.equal(graceSeconds({ kind: 'interval', minutes: 1, display: '' }, c), 120);
    assert.equal(graceSeconds({ kind: 'interval', minutes: 60, display: '' }, c), 1800);
    assert.equal(graceSeconds({ kind: 'cron', expr: '0 9 * * *', display: '' }, c), 7200);
  });
});
