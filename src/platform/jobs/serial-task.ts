/**
 * A background pass that never overlaps itself: a kick while a pass runs
 * asks for exactly one more pass after it. Workers (jobs, outbox, mail) are
 * kicked by timers and wakeups, so many kicks collapse into few passes.
 *
 * With a gap, a pass starts no sooner than `gapMs` after the previous one
 * started: a kick that comes sooner schedules the pass for then, and the
 * kicks meanwhile join it. An idle worker still starts at once; a busy one
 * takes its work in batches instead of a pass per kick.
 */
export class SerialTask {
  private running: Promise<void> | null = null;
  /** A pass is scheduled and has not started: a kick now needs nothing more. */
  private waiting = false;
  private again = false;
  private stopped = false;
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly gapMs = 0,
  ) {}

  kick(): void {
    if (this.stopped || this.waiting) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const start = (): Promise<void> => {
      this.waiting = false;
      if (this.stopped) return Promise.resolve();
      this.lastStart = Date.now();
      return this.pass();
    };
    const wait = this.lastStart + this.gapMs - Date.now();
    this.waiting = wait > 0;
    this.running = (
      wait > 0 ? new Promise<void>((resolve) => setTimeout(resolve, wait)).then(start) : start()
    )
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves once no pass is running or asked for. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }
}
