import type { Clock } from '../../src/shared/clock.js';

/** A clock tests move by hand, so expiry is tested without sleeping. */
export class TestClock implements Clock {
  private current: number;
  constructor(start = Date.parse('2026-01-15T09:00:00.000Z')) {
    this.current = start;
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
