/**
 * A Vitest pool whose worker threads outlive a run, for a Vitest that runs one certification after
 * another (ReusedSpecRunner: the mutation self-test). Vitest's own thread pool ends each run's
 * threads, so every run started a thread that imported zod, undici, json-schema-faker and the
 * contract again, most of a targeted mutant's CPU. A thread here is handed
 * back when its run has ended in order (Vitest sent it "stop" and it answered "stopped"), and the
 * next run starts it again; a run that starts while the thread before it is still answering "stop"
 * waits for it, briefly. Its module cache keeps the contract (Vitest's worker keeps evaluated
 * modules across runs of a non-isolated project, and evaluates the spec files of each run anew).
 * A thread stopped otherwise (a cancelled run), or that speaks while idle (its run left work behind),
 * is ended, as Vitest's own would be.
 *
 * Vitest's own threads pool keeps a non-isolated worker only for the next file queued in the same
 * run, so each mutant would still start a thread (docs/ci.md has the measurement; remeasure on a
 * Vitest upgrade).
 */
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { PoolOptions, PoolRunnerInitializer, PoolWorker, WorkerRequest } from "vitest/node";

const ENTRY = fileURLToPath(new URL("./kept-thread-entry.mjs", import.meta.url));

export interface KeptThreadPool extends PoolRunnerInitializer {
  /** How many threads were started so far (a test sees that runs reuse them). */
  readonly threadsStarted: number;
  /** Ends the threads kept between runs. */
  close(): Promise<void>;
}

/**
 * How long a run waits for the thread of the run before it to come back before it starts one of its
 * own. Vitest asks a run's thread to stop and does not wait for its answer before the next run
 * starts; the answer is a message round trip, a few milliseconds, longer on a busy machine.
 */
const HANDBACK_WAIT_MS = 2_000;

export function keptThreadPool(): KeptThreadPool {
  const idle: Worker[] = [];
  const live = new Set<Worker>();
  /** Threads whose run was asked to stop: each comes back to `idle`, or exits. */
  const returning = new Set<Worker>();
  const changed: (() => void)[] = [];
  const notify = () => {
    for (const wake of changed.splice(0)) wake();
  };
  let threadsStarted = 0;
  /**
   * An idle thread says nothing: a message then comes from what its last run left behind (a timer,
   * a request still under way), which would reach the next run's reporters as that run's. Such a
   * thread is ended, and the next run gets a fresh one.
   */
  function endIfItSpeaks(this: Worker) {
    const at = idle.indexOf(this);
    if (at >= 0) idle.splice(at, 1);
    void this.terminate();
  }
  const take = async (options: PoolOptions): Promise<Worker> => {
    const waitUntil = Date.now() + HANDBACK_WAIT_MS;
    while (idle.length === 0 && returning.size > 0 && Date.now() < waitUntil) {
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, waitUntil - Date.now());
        changed.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
    const kept = idle.pop();
    if (kept) {
      kept.off("message", endIfItSpeaks);
      return kept;
    }
    // Waited in vain: a thread that never came back (Vitest gave up on its answer and did not hand
    // it back) is not waited for again.
    returning.clear();
    const thread = new Worker(ENTRY, { env: options.env, execArgv: options.execArgv });
    threadsStarted += 1;
    live.add(thread);
    thread.once("exit", () => {
      live.delete(thread);
      returning.delete(thread);
      const at = idle.indexOf(thread);
      if (at >= 0) idle.splice(at, 1);
      notify();
    });
    return thread;
  };
  return {
    name: "kept-threads",
    get threadsStarted() {
      return threadsStarted;
    },
    createPoolWorker: (options) =>
      new KeptThreadWorker({
        take: () => take(options),
        stopRequested: (thread) => returning.add(thread),
        giveBack: (thread) => {
          returning.delete(thread);
          thread.on("message", endIfItSpeaks);
          idle.push(thread);
          notify();
        },
      }),
    async close() {
      idle.length = 0;
      returning.clear();
      notify();
      await Promise.all([...live].map((thread) => thread.terminate()));
    },
  };
}

/** How a run's hold on a thread deals with the pool. */
interface ThreadLender {
  take(): Promise<Worker>;
  /** The run's thread was asked to stop: the pool may wait for it rather than start another. */
  stopRequested(thread: Worker): void;
  giveBack(thread: Worker): void;
}

type Listener = (arg: unknown) => void;

/** One run's hold on a thread: the listeners Vitest put on it are its own, and go with it. */
class KeptThreadWorker implements PoolWorker {
  readonly name = "kept-threads";
  private thread: Worker | undefined;
  private listeners: [string, Listener][] = [];
  /** Vitest asked the thread to stop and it answered: its run is over, it may serve another. */
  private stoppedInOrder = false;
  private stopRequested = false;

  constructor(private readonly lender: ThreadLender) {}

  private get current(): Worker {
    if (!this.thread) throw new Error("kept-thread pool: the thread was handed back or never started");
    return this.thread;
  }

  async start(): Promise<void> {
    this.thread ??= await this.lender.take();
    this.stoppedInOrder = false;
    this.stopRequested = false;
    this.on("message", (message) => {
      const response = message as { __vitest_worker_response__?: boolean; type?: string; error?: unknown };
      if (this.stopRequested && response?.__vitest_worker_response__ && response.type === "stopped")
        this.stoppedInOrder = response.error === undefined;
    });
  }

  on(event: string, callback: Listener): void {
    this.current.on(event, callback);
    this.listeners.push([event, callback]);
  }

  off(event: string, callback: Listener): void {
    this.current.off(event, callback);
    this.listeners = this.listeners.filter(([e, c]) => e !== event || c !== callback);
  }

  send(message: WorkerRequest): void {
    if ((message as { type?: string }).type === "stop") {
      this.stopRequested = true;
      this.lender.stopRequested(this.current);
    }
    this.current.postMessage(message);
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  async stop(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    if (!thread) return;
    for (const [event, callback] of this.listeners) thread.off(event, callback);
    this.listeners = [];
    if (this.stoppedInOrder) this.lender.giveBack(thread);
    else await thread.terminate();
  }
}
