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

/** How late a timer tick may be on an idle machine (ms): below this, lateness is not summed. */
const TIMER_JITTER_MS = 2;

export class StallMonitor {
  private readonly intervalMs: number;
  private readonly thresholdMs: number;
  private readonly capacity: number;
  private readonly stalls: Stall[] = [];
  /**
   * All the lateness of its ticks, summed per second of the clock (the last hour): a process that is
   * slowed rather than stopped (a machine with more work than cores) shows as many ticks a little
   * late each, none of them a stall, which add up.
   */
  private readonly lateBySecond = new Map<number, number>();
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
    // A tick a millisecond or two late is the timer's own jitter, on any machine: not a hold.
    if (lateMs > TIMER_JITTER_MS) {
      const second = Math.floor(Date.now() / 1000);
      this.lateBySecond.set(second, (this.lateBySecond.get(second) ?? 0) + lateMs);
      if (this.lateBySecond.size > 3600)
        this.lateBySecond.delete(this.lateBySecond.keys().next().value as number);
    }
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

  /**
   * How long the process was held up in all, from `sinceMs` to `untilMs` (whole seconds around
   * them, and one tick after): the sum of every tick's lateness, plus the monitor's resolution. An
   * interval between two stamps taken then is off by at most this much, however the holding up
   * was spread; at least {@link maxStallMs}.
   */
  heldUpMs(sinceMs: number, untilMs: number): number {
    const first = Math.floor(sinceMs / 1000);
    const last = Math.floor((untilMs + this.intervalMs + this.thresholdMs) / 1000);
    let total = 0;
    // Over the seconds kept (an hour at most), not the span asked about: `since` may be 0.
    for (const [second, lateMs] of this.lateBySecond) if (second >= first && second <= last) total += lateMs;
    return Math.max(Math.round(total) + this.thresholdMs, this.maxStallMs(sinceMs, untilMs));
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
