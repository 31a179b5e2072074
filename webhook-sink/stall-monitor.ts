/**
 * How long the sink's process was held up (a busy event loop, or a machine too loaded to run
 * it), as it happened. While held up, the sink stamps arrivals late: an arrival time is known
 * only to within the longest stall around it. A check that judges intervals between arrivals
 * (the retry schedule) asks for that bound, so that the sink's own lateness is never blamed on
 * the target, and says so when it matters.
 *
 * A timer ticks every `intervalMs`; a tick that comes more than `thresholdMs` late records a
 * stall (when it ended, how long it was). The last `capacity` stalls are kept.
 */
export interface Stall {
  /** When the stall was seen to end (ms since the epoch). */
  endedAtMs: number;
  /** How much later than due the timer ran (ms). */
  lateMs: number;
}

export interface StallMonitorOptions {
  intervalMs?: number;
  thresholdMs?: number;
  capacity?: number;
}

export class StallMonitor {
  private readonly intervalMs: number;
  private readonly thresholdMs: number;
  private readonly capacity: number;
  private readonly stalls: Stall[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastTickMs = 0;
  private readonly startedAtMs: number;

  constructor(options: StallMonitorOptions = {}) {
    this.intervalMs = options.intervalMs ?? 20;
    this.thresholdMs = options.thresholdMs ?? 10;
    this.capacity = options.capacity ?? 10_000;
    this.startedAtMs = Date.now();
    this.lastTickMs = performance.now();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    // The monitor never keeps a process alive on its own.
    this.timer.unref();
  }

  private tick(): void {
    const now = performance.now();
    const lateMs = now - this.lastTickMs - this.intervalMs;
    this.lastTickMs = now;
    if (lateMs <= this.thresholdMs) return;
    this.stalls.push({ endedAtMs: Date.now(), lateMs: Math.round(lateMs) });
    if (this.stalls.length > this.capacity) this.stalls.splice(0, this.stalls.length - this.capacity);
  }

  /**
   * The longest stall that may have delayed a stamp taken in [sinceMs, untilMs]: stalls seen to
   * end from then until one tick after, plus the resolution of the monitor itself (a stall
   * shorter than a tick and the threshold goes unrecorded).
   */
  maxStallMs(sinceMs: number, untilMs: number): number {
    const until = untilMs + this.intervalMs + this.thresholdMs;
    let longest = 0;
    for (const stall of this.stalls) {
      if (stall.endedAtMs >= sinceMs && stall.endedAtMs <= until) longest = Math.max(longest, stall.lateMs);
    }
    return longest + this.thresholdMs;
  }

  /** Whether the monitor ran over the whole span (a stall before it started is unknown). */
  covers(sinceMs: number): boolean {
    return sinceMs >= this.startedAtMs;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
