/**
 * The gap of the background workers that writes feed (the outbox dispatcher, and the job runner, which
 * runs what the dispatcher's batches enqueue): under write load, what came in that time goes as one
 * batch (one claim and one commit) instead of a pass per write. 50 ms rather than 10: with 16 callers
 * creating products, batches of ~6 events became ~30 (and so did the embeddings refresh job each batch
 * enqueues), for about a tenth more creates a second in an A/B run of bench/catalog-writes.
 */
export const WRITE_FED_GAP_MS = 50;

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
