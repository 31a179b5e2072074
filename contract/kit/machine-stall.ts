/**
 * How long the machine kept runnable work off a CPU, as it happened: a target in another process
 * (a container, a sandbox on this machine, the provider under `npm run provider`) is slowed by the
 * machine's CPU contention, which the sink's own event loop may not see. A check that judges a
 * callback's lateness allows this much and no more, for a target on this host only, and never more
 * than the delay it excuses: PSI `some` reads near 100 % on any busy machine, a bound, not a measure.
 *
 * Measured, best first:
 * - `cpu-pressure`: Linux PSI, `/proc/pressure/cpu`, the `some` total (microseconds during which at
 *   least one runnable task waited for a CPU), sampled every `intervalMs` and interpolated between
 *   samples, so a window's figure is its end's total less its start's.
 * - `load-average`: where PSI cannot be read, the 1-minute load average over the cores: the share
 *   of each sample's time taken as waited is (load − cores) / cores, between 0 and 1. A rough,
 *   lagging estimate; it never makes a quiet machine look loaded.
 * - `none`: neither (Windows answers a load average of 0): no machine figure; the sink's own
 *   event-loop holds (stall-monitor.ts) are then all the room a late callback gets.
 */
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";

export type MachineStallSource = "cpu-pressure" | "load-average" | "none";

export interface MachineStallOptions {
  intervalMs?: number;
  /** How many samples are kept (the default: an hour at the default interval). */
  capacity?: number;
  /** PSI `some` total in microseconds, or undefined where it cannot be read. */
  readPressureUs?: () => number | undefined;
  /** The 1-minute load average, or undefined where there is none. */
  readLoad?: () => number | undefined;
  cores?: number;
  now?: () => number;
  /** False: no timer; `sample()` is called by hand (tests). */
  autoSample?: boolean;
}

const PSI_SOME_TOTAL = /^some\b.*\btotal=(\d+)/m;

/** The `some` total of `/proc/pressure/cpu`, in microseconds; undefined where PSI is absent or off. */
export function readCpuPressureUs(path = "/proc/pressure/cpu"): number | undefined {
  try {
    const match = PSI_SOME_TOTAL.exec(readFileSync(path, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The 1-minute load average; undefined where the platform reports none (0 on Windows). */
export function readLoadAverage(): number | undefined {
  const [one] = loadavg();
  return one !== undefined && one > 0 ? one : undefined;
}

interface Sample {
  atMs: number;
  /** Time waited so far, in ms (cumulative). */
  waitedMs: number;
}

export class MachineStallSampler {
  readonly source: MachineStallSource;
  private readonly samples: Sample[] = [];
  private readonly capacity: number;
  private readonly readPressureUs: () => number | undefined;
  private readonly readLoad: () => number | undefined;
  private readonly cores: number;
  private readonly now: () => number;
  private readonly pressureBaseUs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: MachineStallOptions = {}) {
    const intervalMs = options.intervalMs ?? 100;
    this.capacity = options.capacity ?? Math.ceil(3_600_000 / intervalMs);
    this.readPressureUs = options.readPressureUs ?? (() => readCpuPressureUs());
    this.readLoad = options.readLoad ?? readLoadAverage;
    this.cores = options.cores ?? availableParallelism();
    this.now = options.now ?? Date.now;
    const pressure = this.readPressureUs();
    this.pressureBaseUs = pressure ?? 0;
    this.source =
      pressure !== undefined ? "cpu-pressure" : this.readLoad() !== undefined ? "load-average" : "none";
    this.samples.push({ atMs: this.now(), waitedMs: 0 });
    if (this.source !== "none" && options.autoSample !== false) {
      this.timer = setInterval(() => this.sample(), intervalMs);
      // The sampler never keeps a process alive on its own.
      this.timer.unref();
    }
  }

  /** Takes one sample now. */
  sample(): void {
    const atMs = this.now();
    const last = this.samples.at(-1) as Sample;
    let waitedMs = last.waitedMs;
    if (this.source === "cpu-pressure") {
      const us = this.readPressureUs();
      if (us !== undefined) waitedMs = Math.max(last.waitedMs, (us - this.pressureBaseUs) / 1000);
    } else if (this.source === "load-average") {
      const load = this.readLoad() ?? 0;
      const share = Math.min(1, Math.max(0, (load - this.cores) / this.cores));
      waitedMs = last.waitedMs + share * Math.max(0, atMs - last.atMs);
    }
    this.samples.push({ atMs, waitedMs });
    if (this.samples.length > this.capacity) this.samples.splice(0, this.samples.length - this.capacity);
  }

  /** Time waited by the moment `atMs`, interpolated between the samples around it. */
  private waitedAt(atMs: number): number {
    const samples = this.samples;
    const first = samples[0] as Sample;
    if (atMs <= first.atMs) return first.waitedMs;
    for (let i = 1; i < samples.length; i++) {
      const after = samples[i] as Sample;
      if (after.atMs < atMs) continue;
      const before = samples[i - 1] as Sample;
      const span = after.atMs - before.atMs;
      const share = span > 0 ? (atMs - before.atMs) / span : 1;
      return before.waitedMs + share * (after.waitedMs - before.waitedMs);
    }
    return (samples.at(-1) as Sample).waitedMs;
  }

  /**
   * How long runnable work waited for a CPU on this machine from `sinceMs` to `untilMs` (ms since
   * the epoch), rounded up to the millisecond; 0 with no source.
   */
  stallMs(sinceMs: number, untilMs: number): number {
    if (this.source === "none" || untilMs <= sinceMs) return 0;
    // A window that ends after the last sample is measured up to now.
    if (untilMs > (this.samples.at(-1) as Sample).atMs) this.sample();
    return Math.ceil(Math.max(0, this.waitedAt(untilMs) - this.waitedAt(sinceMs)));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
