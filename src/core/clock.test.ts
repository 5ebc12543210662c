import { describe, it, expect } from 'vitest';
import { addSeconds, createManualClock, systemClock, toIso } from './clock.js';

describe('createManualClock', () => {
  it('starts at 2026-01-01T00:00:00.000Z by default', () => {
    expect(createManualClock().now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('starts at the given ISO string', () => {
    expect(createManualClock('2030-05-06T07:08:09.000Z').now().toISOString()).toBe('2030-05-06T07:08:09.000Z');
  });

  it('starts at the given Date', () => {
    expect(createManualClock(new Date('2030-05-06T07:08:09.000Z')).now().toISOString()).toBe('2030-05-06T07:08:09.000Z');
  });

  it('stands still until moved', () => {
    const clock = createManualClock();
    expect(clock.now().getTime()).toBe(clock.now().getTime());
  });

  it('advances by whole seconds', () => {
    const clock = createManualClock('2026-01-01T00:00:00.000Z');
    clock.advance(90);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:01:30.000Z');
  });

  it('adds up several advances', () => {
    const clock = createManualClock('2026-01-01T00:00:00.000Z');
    clock.advance(3600);
    clock.advance(60);
    expect(clock.now().toISOString()).toBe('2026-01-01T01:01:00.000Z');
  });

  it('advances by fractions of a second', () => {
    const clock = createManualClock('2026-01-01T00:00:00.000Z');
    clock.advance(0.25);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.250Z');
  });

  it('moves back with a negative advance', () => {
    const clock = createManualClock('2026-01-01T00:00:00.000Z');
    clock.advance(-1);
    expect(clock.now().toISOString()).toBe('2025-12-31T23:59:59.000Z');
  });

  it('jumps to the time given to set, as a string or a Date', () => {
    const clock = createManualClock();
    clock.set('2027-02-03T04:05:06.000Z');
    expect(clock.now().toISOString()).toBe('2027-02-03T04:05:06.000Z');
    clock.set(new Date('2020-01-01T00:00:00.000Z'));
    expect(clock.now().toISOString()).toBe('2020-01-01T00:00:00.000Z');
  });

  it('advances from the time that was set', () => {
    const clock = createManualClock();
    clock.set('2027-02-03T04:05:06.000Z');
    clock.advance(4);
    expect(clock.now().toISOString()).toBe('2027-02-03T04:05:10.000Z');
  });

  it('is not moved by changes to a Date it returned', () => {
    const clock = createManualClock('2026-01-01T00:00:00.000Z');
    clock.now().setFullYear(1999);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('is not moved by changes to the Date it started from', () => {
    const start = new Date('2026-01-01T00:00:00.000Z');
    const clock = createManualClock(start);
    start.setFullYear(1999);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('systemClock', () => {
  it('returns the current time', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe('addSeconds', () => {
  it('returns a date the given seconds later', () => {
    expect(addSeconds(new Date('2026-01-01T00:00:00.000Z'), 600).toISOString()).toBe('2026-01-01T00:10:00.000Z');
  });

  it('crosses day and year boundaries', () => {
    expect(addSeconds(new Date('2026-12-31T23:59:59.000Z'), 86_400).toISOString()).toBe('2027-01-01T23:59:59.000Z');
  });

  it('goes back with negative seconds', () => {
    expect(addSeconds(new Date('2026-01-01T00:00:00.000Z'), -1).toISOString()).toBe('2025-12-31T23:59:59.000Z');
  });

  it('leaves the given date unchanged', () => {
    const date = new Date('2026-01-01T00:00:00.000Z');
    addSeconds(date, 60);
    expect(date.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('toIso', () => {
  it('formats a date as an ISO 8601 UTC string with milliseconds', () => {
    expect(toIso(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)))).toBe('2026-01-02T03:04:05.006Z');
  });
});
