/**
 * What is checked before the first request, so a run that cannot end well is refused in
 * seconds, naming the variable (exit 64), instead of being lost after the whole run: the report
 * directory must be writable. And the diagnoses that make a run "not run" (exit 2) rather than
 * "not conformant": a target that refuses the API key.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import type { RecordedExchange } from "../../contract/index.ts";
import { SettingsError } from "../../run-setup/index.ts";

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code ?? "";
const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * mkdir -p, one level at a time: Node's recursive mkdir never returns for a path under /proc
 * (H2H_REPORT_DIR=/proc/x hung with no output), where a plain mkdir fails at once.
 */
async function makeDirectories(path: string): Promise<void> {
  const parts = resolve(path).split(sep).filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    try {
      await mkdir(`${sep}${parts.slice(0, i).join(sep)}`);
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
  }
}

/** Creates the report directory if needed and writes (then removes) a probe file in it. */
export async function assertReportDirWritable(reportDir: string): Promise<void> {
  const probe = join(reportDir, `.h2h-write-probe-${process.pid}-${randomBytes(3).toString("hex")}`);
  try {
    await makeDirectories(reportDir);
    await writeFile(probe, "");
  } catch (error) {
    throw new SettingsError(
      `H2H_REPORT_DIR "${reportDir}" is not writable (${errorCode(error) || errorMessage(error)}): ` +
        "point it at a directory this user can write, nothing was run",
    );
  } finally {
    await rm(probe, { force: true }).catch(() => undefined);
  }
}

/** The status that says the target refused the run's API key. */
const UNAUTHORIZED = 401;

/**
 * When every answer of the run is 401, nothing about the contract could be judged: the API key is
 * wrong (or unknown to this target). Said so, with the fix; undefined otherwise.
 */
export function invalidApiKeyDiagnosis(exchanges: readonly RecordedExchange[]): string | undefined {
  const answered = exchanges.filter((e) => e.response.status > 0);
  if (answered.length === 0 || answered.some((e) => e.response.status !== UNAUTHORIZED)) return undefined;
  return (
    `invalid API key: all ${answered.length} request(s) were answered 401 Unauthorized, so nothing could be judged; ` +
    "check H2H_API_KEY (and H2H_API_KEY_2) for this target"
  );
}

/** The status that says the target is rate-limiting the run. */
const TOO_MANY_REQUESTS = 429;

/**
 * Rate limits: when the target answered 429 Too Many Requests to the reachability probe,
 * or to at least half of the run's requests, the failures say nothing about the contract: the run
 * ends with that diagnosis ("not run", exit 2), naming the largest Retry-After seen.
 */
export function rateLimitedDiagnosis(exchanges: readonly RecordedExchange[]): string | undefined {
  const answered = exchanges.filter((e) => e.response.status > 0);
  const limited = answered.filter((e) => e.response.status === TOO_MANY_REQUESTS);
  if (limited.length === 0 || limited.length * 2 < answered.length) return undefined;
  const waits = limited
    .map((e) => e.response.rateLimit?.retryAfterMs)
    .filter((ms): ms is number => typeof ms === "number");
  const retryAfter =
    waits.length > 0 ? `, Retry-After up to ${(Math.max(...waits) / 1000).toFixed(0)} s` : ", no Retry-After";
  return (
    `rate limited: ${limited.length} of ${answered.length} request(s) were answered 429 Too Many Requests${retryAfter}; ` +
    "nothing about the contract could be judged: ask the provider to raise the sandbox's limit for this key, or run later"
  );
}

/** Rate limits: every 429 the run met, waited out (Retry-After within the profile's bound) or not. */
export interface RateLimitWaits {
  /** Requests answered 429 at least once, then sent again. */
  requests: number;
  /** 429 answers waited out. */
  waits: number;
  waitedMs: number;
  /** Every 429 answer: the ones waited out and the ones that stood. */
  answered429: number;
  /** Final answers that were 429 (no Retry-After, or one too long): no check judged them. */
  notWaitedOut: number;
}

/** The run's 429s, counted; undefined when the target never answered one. */
export function rateLimitWaitsOf(exchanges: readonly RecordedExchange[]): RateLimitWaits | undefined {
  const retried = exchanges.filter((e) => (e.rateLimited?.length ?? 0) > 0);
  const attempts = retried.flatMap((e) => e.rateLimited ?? []);
  const notWaitedOut = exchanges.filter((e) => e.response.status === TOO_MANY_REQUESTS).length;
  if (attempts.length === 0 && notWaitedOut === 0) return undefined;
  return {
    requests: retried.length,
    waits: attempts.length,
    waitedMs: attempts.reduce((total, a) => total + a.waitedMs, 0),
    answered429: attempts.length + notWaitedOut,
    notWaitedOut,
  };
}

export function rateLimitWaitsLine(waits: RateLimitWaits): string {
  const waited =
    `${waits.requests} request(s) were answered 429 Too Many Requests and sent again after ` +
    `waiting out Retry-After (${waits.waits} wait(s), ${(waits.waitedMs / 1000).toFixed(1)} s in all)`;
  if (waits.notWaitedOut === 0) return `rate limits: ${waited}`;
  return (
    `rate limits: ${waits.answered429} answer(s) 429 Too Many Requests, ${waits.waits} waited out, ` +
    `${waits.notWaitedOut} not waited out (no Retry-After, or one too long): the checks that needed them were not evaluated` +
    (waits.waits > 0 ? `; ${waited}` : "")
  );
}
