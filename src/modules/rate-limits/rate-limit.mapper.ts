import { RateLimitStatusResponse } from './dto/rate-limit-responses.dto';
import type { RateLimitSnapshot } from '../../platform/rate-limit/rate-limit-snapshot';

export function toRateLimitStatusResponse(snapshot: RateLimitSnapshot): RateLimitStatusResponse {
  const { subject, windows, decision } = snapshot;
  return {
    tier: subject.tier,
    counted_per: subject.kind,
    enforced: decision !== null,
    windows: windows.map((window, i) => {
      const state = decision?.windows[i];
      return {
        window: window.name,
        window_seconds: window.windowMs / 1000,
        limit: window.limit,
        remaining: state ? state.remaining : null,
        reset: state ? Math.ceil(state.resetAtMs / 1000) : null,
      };
    }),
  };
}
