import { Injectable } from '@nestjs/common';

/**
 * The time as the rate limiter sees it, in epoch milliseconds. A provider
 * rather than Date.now() so that e2e tests can move it (window edges, the
 * hour window) without waiting.
 */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
}
