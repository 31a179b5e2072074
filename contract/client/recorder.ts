/**
 * Records every exchange of a run, masked, so reports and the HAR file can show them. Spec
 * workers append one JSON line per exchange to a file of their own in the run directory; the
 * runner reads them all after the run. Without a run directory (specs run outside certify),
 * exchanges are kept in memory only.
 *
 * Evidence is bounded as written: each body is cut at the body limit in JSON-serialised bytes
 * (a control byte is six of them), and the bodies of a whole run at {@link MAX_RUN_BODY_BYTES}.
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  truncateSync,
} from "node:fs";
import { join } from "node:path";
import type { Masker } from "../kit/index.ts";
import {
  boundedJson,
  cutToSerialisedBytes,
  jsonBytes,
  serialisedBytes,
  withoutBom,
} from "../schemas/index.ts";
import { DEFAULT_MAX_BODY_BYTES, type EvidenceCut, type Exchange } from "./h2h-client.ts";

export interface RecordedExchange extends Exchange {
  /** Unique in the run: `<file tag>-<n>`. */
  id: string;
  /** Which spec file (or the runner) sent it. */
  source: string;
}

/**
 * The bodies of a run's exchanges kept in all, in serialised bytes: some 500 answers at the
 * default limit. Past it, bodies are dropped (counted) and the exchanges kept without them, so
 * the four reports and the runner holding them stay well under 1 GiB of memory.
 */
export const MAX_RUN_BODY_BYTES = 32 * 1024 * 1024;

/** What is kept of a parsed answer past the run's bound: its envelope, long strings cut. */
const SHAPE_BYTES = 4 * 1024;

const EXCHANGE_FILE = /^exchanges-.+\.jsonl$/;

/**
 * A file of a run folder that could not be written in full (TMPDIR full) is marked by an empty
 * file beside it, `<file>.failed-<CODE>`: an empty file takes no data block, so it can be made on
 * a full disk, where a line saying so could not be written.
 */
const WRITE_FAILURE = /^(.+)\.failed-([A-Z0-9_]+)$/;

/** A run-folder file that lost records: its path, and why (ENOSPC, EDQUOT, ...). */
export interface WriteFailure {
  file: string;
  code: string;
}

/**
 * Appends a line to a run-folder file, or, when the disk refuses it, takes back what was written
 * of it (so the file ends with whole lines) and marks the file; false then. Never throws: a spec
 * must not fail for its evidence's sake, the run says it lost evidence.
 */
export function appendRecord(file: string, line: string): boolean {
  try {
    appendFileSync(file, line);
    return true;
  } catch (error) {
    const code = String((error as NodeJS.ErrnoException).code ?? "EIO").replace(/[^A-Z0-9_]/gi, "");
    try {
      if (existsSync(file)) truncateSync(file, wholeLinesEnd(file));
    } catch {
      // The reader skips a torn last line too.
    }
    try {
      closeSync(openSync(`${file}.failed-${code}`, "w"));
    } catch {
      // No marker: the torn line or the missing ids are all the reader has.
    }
    return false;
  }
}

/** Where a file's last whole line ends (after its last newline; 0 with none), read from the end. */
function wholeLinesEnd(file: string): number {
  const fd = openSync(file, "r");
  try {
    const chunk = Buffer.alloc(64 * 1024);
    for (let end = fstatSync(fd).size; end > 0; ) {
      const start = Math.max(0, end - chunk.length);
      const read = readSync(fd, chunk, 0, end - start, start);
      const newline = chunk.subarray(0, read).lastIndexOf(10);
      if (newline !== -1) return start + newline + 1;
      end = start;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/** The files of a run folder that lost records (see {@link appendRecord}). */
export function readWriteFailures(runDir: string): WriteFailure[] {
  if (!existsSync(runDir)) return [];
  return readdirSync(runDir)
    .sort()
    .flatMap((name) => {
      const match = WRITE_FAILURE.exec(name);
      return match ? [{ file: join(runDir, match[1] as string), code: match[2] as string }] : [];
    });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(withoutBom(text));
  } catch {
    return undefined;
  }
}

/** A body cut to `limit` serialised bytes, with the cut said, as the evidence keeps it. */
function boundedBody(text: string, limit: number): { body: string; evidenceCut?: EvidenceCut } {
  const cut = cutToSerialisedBytes(text, limit);
  return cut.cutFrom === undefined
    ? { body: cut.text }
    : { body: cut.text, evidenceCut: { serialisedBytes: cut.cutFrom, limitBytes: limit } };
}

export class ExchangeRecorder {
  private count = 0;
  readonly exchanges: RecordedExchange[] = [];
  private file: string | undefined;

  constructor(
    private readonly source: string,
    private readonly masker: Masker,
    runDir: string | undefined,
    /** Each body is kept up to this many bytes as written in JSON (the profile's limits.maxBodyBytes). */
    private readonly maxBodyBytes: number = DEFAULT_MAX_BODY_BYTES,
  ) {
    const tag = source.replace(/[^a-zA-Z0-9]+/g, "-").replace(/^-|-$/g, "");
    this.file = runDir ? join(runDir, `exchanges-${tag}-${process.pid}.jsonl`) : undefined;
  }

  /** Masks and stores an exchange; returns the masked copy with its id. */
  record(exchange: Exchange): RecordedExchange {
    this.count += 1;
    const request = boundedBody(this.masker.text(exchange.request.body), this.maxBodyBytes);
    const maskedResponse = this.masker.text(exchange.response.body);
    const response = boundedBody(maskedResponse, this.maxBodyBytes);
    // The parsed copy is written too, within the same bound; its shape (what the runner's checks
    // read) is kept even when its long strings are not.
    const json =
      exchange.response.json === undefined
        ? undefined
        : boundedJson(parseJson(maskedResponse), this.maxBodyBytes);
    const recorded: RecordedExchange = {
      ...exchange,
      id: `${this.source}-${this.count}`,
      source: this.source,
      request: {
        ...exchange.request,
        url: this.masker.text(exchange.request.url),
        headers: this.masker.headers(exchange.request.headers),
        ...request,
      },
      response: {
        ...exchange.response,
        headers: this.masker.headers(exchange.response.headers),
        ...response,
        json,
        // Member names and escapes are the target's text: masked like its body.
        ...(exchange.response.jsonText
          ? {
              jsonText: {
                ...exchange.response.jsonText,
                issues: exchange.response.jsonText.issues.map((issue) => ({
                  ...issue,
                  path: this.masker.text(issue.path),
                  detail: this.masker.text(issue.detail),
                })),
              },
            }
          : {}),
      },
      // The failure's text names the URL, which may carry a secret.
      ...(exchange.reconnected
        ? { reconnected: { ...exchange.reconnected, detail: this.masker.text(exchange.reconnected.detail) } }
        : {}),
    };
    this.exchanges.push(recorded);
    // Synchronous on purpose: a worker that dies mid-run still leaves every exchange it made. After
    // a write the disk refused, none is written: the file holds what came before, whole.
    if (this.file && !appendRecord(this.file, `${JSON.stringify(recorded)}\n`)) this.file = undefined;
    return recorded;
  }
}

/** What a run kept of its exchanges, and what the run-wide bound left out. */
export interface RecordedEvidence {
  exchanges: RecordedExchange[];
  /** Lines that could not be read (a record torn by a full disk or a kill), by file. */
  unreadable: { file: string; line: number; error: string }[];
  /** Exchanges kept without their bodies: the run's bodies had reached the bound. */
  bodiesDropped: number;
  /** The serialised bytes of the bodies (and parsed copies) dropped. */
  bytesDropped: number;
  /** The bound, in serialised bytes. */
  limitBytes: number;
}

/** Each line of a file, read a chunk at a time (the file is never one string). */
export function* linesOf(path: string): Generator<string> {
  const fd = openSync(path, "r");
  try {
    const chunk = Buffer.alloc(1024 * 1024);
    let pending: Buffer[] = [];
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      let start = 0;
      for (let end = chunk.indexOf(10, start); end !== -1 && end < read; end = chunk.indexOf(10, start)) {
        pending.push(chunk.subarray(start, end));
        yield Buffer.concat(pending).toString("utf8");
        pending = [];
        start = end + 1;
      }
      if (start < read) pending.push(Buffer.from(chunk.subarray(start, read)));
    }
    if (pending.length > 0) yield Buffer.concat(pending).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Every exchange recorded in a run directory, sorted by start. Bodies are kept up to
 * `limitBytes` (serialised) for the whole run, in the order the files list them; past it each
 * exchange is kept without its bodies, and the drop is counted.
 */
export function readRecordedEvidence(
  runDir: string,
  limitBytes: number = MAX_RUN_BODY_BYTES,
): RecordedEvidence {
  const evidence: RecordedEvidence = {
    exchanges: [],
    unreadable: [],
    bodiesDropped: 0,
    bytesDropped: 0,
    limitBytes,
  };
  if (!existsSync(runDir)) return evidence;
  let kept = 0;
  for (const name of readdirSync(runDir)
    .filter((n) => EXCHANGE_FILE.test(n))
    .sort()) {
    const file = join(runDir, name);
    let lineNumber = 0;
    for (const line of linesOf(file)) {
      lineNumber += 1;
      if (line.trim() === "") continue;
      let exchange: RecordedExchange;
      try {
        exchange = JSON.parse(line) as RecordedExchange;
      } catch (error) {
        evidence.unreadable.push({ file, line: lineNumber, error: (error as Error).message });
        continue;
      }
      const requestBytes = serialisedBytes(exchange.request.body);
      const responseBytes = serialisedBytes(exchange.response.body) + jsonBytes(exchange.response.json);
      if (kept + requestBytes + responseBytes <= limitBytes) kept += requestBytes + responseBytes;
      else {
        evidence.bodiesDropped += 1;
        evidence.bytesDropped += requestBytes + responseBytes;
        const dropped = (bytes: number): EvidenceCut => ({
          serialisedBytes: bytes,
          limitBytes: 0,
          runBound: true,
        });
        exchange.request = { ...exchange.request, body: "", evidenceCut: dropped(requestBytes) };
        // The shape of a parsed answer stays: the runner's checks read its envelope.
        exchange.response = {
          ...exchange.response,
          body: "",
          json: boundedJson(exchange.response.json, SHAPE_BYTES),
          evidenceCut: dropped(responseBytes),
        };
      }
      evidence.exchanges.push(exchange);
    }
  }
  evidence.exchanges.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return evidence;
}

/** Every exchange recorded in a run directory, sorted by start (bodies bounded as {@link readRecordedEvidence}). */
export function readRecordedExchanges(runDir: string): RecordedExchange[] {
  return readRecordedEvidence(runDir).exchanges;
}
