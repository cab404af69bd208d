/** A job this process is running, with the claim (attempt number) that fences its updates. */
export interface HeldLease {
  id: string;
  attempt: number;
  startedAt: number;
  /** The job's own time limit: past it the lease is no longer renewed and another worker may retry it. */
  timeoutMs: number;
}

/**
 * How often a worker renews the leases it holds: three renewals fit in one
 * lease, so one slow or lost heartbeat does not let a live job be taken over.
 */
export function renewalIntervalMs(leaseMs: number): number {
  return Math.max(1, Math.floor(leaseMs / 3));
}

/** The leases still worth renewing at `now`: a job past its time limit is presumed hung and let go. */
export function leasesToRenew(held: Iterable<HeldLease>, now: number): HeldLease[] {
  return [...held].filter((lease) => now - lease.startedAt < lease.timeoutMs);
}
