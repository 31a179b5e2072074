/**
 * A typed client of the sink's query API, for the specs, the load run and tests: list the
 * callbacks matching a filter, or wait (long-poll) until enough have arrived. Never sleep-and-poll.
 */
import { X509Certificate } from "node:crypto";
import type { TLSSocket } from "node:tls";
import { Agent, buildConnector, request } from "undici";
import type { MachineStallSource } from "../contract/kit/index.ts";
import type { CallbackFilter, SinkStats } from "./server.ts";
import type { StoredCallback } from "./store.ts";

/** What `GET /api/stalls` answers (see SinkClient.stalls). */
export interface SinkStallReport {
  maxStallMs: number;
  heldUpMs: number;
  covered: boolean;
  /** Absent from a sink older than this client. */
  machineStallMs?: number;
  machineSource?: MachineStallSource;
}

export interface WaitResult {
  timedOut: boolean;
  callbacks: StoredCallback[];
}

export interface SinkClientOptions {
  /**
   * The certificate an HTTPS sink serves (`RunningSink.certificate`): the client accepts exactly
   * that certificate, whatever names it carries and whoever issued it (the sink is reached on
   * loopback, where its public name does not match).
   */
  pinnedCertificate?: string;
}

/** An undici connector that accepts one certificate only, by its SHA-256 fingerprint. */
function pinningConnector(pem: string): buildConnector.connector {
  const expected = new X509Certificate(pem).fingerprint256;
  // Chain and name checks are replaced by the stronger check below, not dropped.
  const connector = buildConnector({ rejectUnauthorized: false });
  return (options, callback) =>
    connector(options, (...args) => {
      const [error, socket] = args;
      if (error || !socket) return callback(...args);
      const actual = (socket as TLSSocket).getPeerCertificate?.()?.fingerprint256;
      if (actual === expected) return callback(null, socket);
      socket.destroy();
      callback(
        new Error(
          `the sink at ${options.hostname}:${options.port} serves another certificate than it was started with`,
        ),
        null,
      );
    });
}

export class SinkClient {
  private readonly agent: Agent;

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    options: SinkClientOptions = {},
  ) {
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      ...(options.pinnedCertificate ? { connect: pinningConnector(options.pinnedCertificate) } : {}),
    });
  }

  private async get<T>(
    path: string,
    params: Record<string, string | number | undefined>,
    timeoutMs: number,
  ): Promise<T> {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, String(value));
    const url = `${this.baseUrl}${path}?${query}`;
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        dispatcher: this.agent,
        headers: { authorization: `Bearer ${this.token}` },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (error) {
      throw new Error(
        `webhook sink ${this.baseUrl}${path}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const text = await response.body.text();
    if (response.statusCode !== 200)
      throw new Error(
        `webhook sink ${this.baseUrl}${path}: HTTP ${response.statusCode} ${text.slice(0, 200)}`,
      );
    return JSON.parse(text) as T;
  }

  async list(filter: CallbackFilter = {}): Promise<StoredCallback[]> {
    return (await this.get<{ callbacks: StoredCallback[] }>("/api/callbacks", { ...filter }, 10_000))
      .callbacks;
  }

  /** Resolves when at least `minCount` callbacks match, or after `timeoutMs` with what there is. */
  waitFor(filter: CallbackFilter, options: { timeoutMs: number; minCount?: number }): Promise<WaitResult> {
    return this.get<WaitResult>(
      "/api/callbacks/wait",
      { ...filter, timeoutMs: options.timeoutMs, minCount: options.minCount ?? 1 },
      options.timeoutMs + 10_000,
    );
  }

  /**
   * How late the sink may have stamped arrivals between `since` and `until` (ms since the
   * epoch): the longest stall of its process then (`maxStallMs`), and how long it was held up in
   * all (`heldUpMs`, which bounds the error of an interval between two of those stamps).
   * `covered` is false when the sink started later. `machineStallMs`: how long runnable work waited
   * for a CPU on the sink's machine then (`machineSource` says how it was measured).
   */
  async stalls(since: number, until: number): Promise<SinkStallReport> {
    return this.get("/api/stalls", { since, until }, 10_000);
  }

  async stats(): Promise<SinkStats> {
    return this.get("/api/stats", {}, 10_000);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
