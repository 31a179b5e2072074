/**
 * Records every exchange of a run, masked, so reports and the HAR file can show them. Spec
 * workers append one JSON line per exchange to a file of their own in the run directory; the
 * runner reads them all after the run. Without a run directory (specs run outside certify),
 * exchanges are kept in memory only.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Exchange } from "./h2h-client.ts";
import type { Masker } from "./masking.ts";

export interface RecordedExchange extends Exchange {
  /** Unique in the run: `<file tag>-<n>`. */
  id: string;
  /** Which spec file (or the runner) sent it. */
  source: string;
}

const EXCHANGE_FILE = /^exchanges-.+\.jsonl$/;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class ExchangeRecorder {
  private count = 0;
  readonly exchanges: RecordedExchange[] = [];
  private readonly file: string | undefined;

  constructor(
    private readonly source: string,
    private readonly masker: Masker,
    runDir: string | undefined,
  ) {
    const tag = source.replace(/[^a-zA-Z0-9]+/g, "-").replace(/^-|-$/g, "");
    this.file = runDir ? join(runDir, `exchanges-${tag}-${process.pid}.jsonl`) : undefined;
  }

  /** Masks and stores an exchange; returns the masked copy with its id. */
  record(exchange: Exchange): RecordedExchange {
    this.count += 1;
    const requestBody = this.masker.text(exchange.request.body);
    const responseBody = this.masker.text(exchange.response.body);
    const recorded: RecordedExchange = {
      ...exchange,
      id: `${this.source}-${this.count}`,
      source: this.source,
      request: {
        ...exchange.request,
        url: this.masker.text(exchange.request.url),
        headers: this.masker.headers(exchange.request.headers),
        body: requestBody,
      },
      response: {
        ...exchange.response,
        headers: this.masker.headers(exchange.response.headers),
        body: responseBody,
        json: exchange.response.json === undefined ? undefined : parseJson(responseBody),
      },
      // The failure's text names the URL, which may carry a secret.
      ...(exchange.reconnected
        ? { reconnected: { ...exchange.reconnected, detail: this.masker.text(exchange.reconnected.detail) } }
        : {}),
    };
    this.exchanges.push(recorded);
    // Synchronous on purpose: a worker that dies mid-run still leaves every exchange it made.
    if (this.file) appendFileSync(this.file, `${JSON.stringify(recorded)}\n`);
    return recorded;
  }
}

/** Every exchange recorded in a run directory, in the order each file recorded them. */
export function readRecordedExchanges(runDir: string): RecordedExchange[] {
  if (!existsSync(runDir)) return [];
  const exchanges: RecordedExchange[] = [];
  for (const name of readdirSync(runDir)
    .filter((n) => EXCHANGE_FILE.test(n))
    .sort()) {
    for (const line of readFileSync(join(runDir, name), "utf8").split("\n")) {
      if (line.trim() !== "") exchanges.push(JSON.parse(line) as RecordedExchange);
    }
  }
  return exchanges.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}
