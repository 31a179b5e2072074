/**
 * The load run's settings, from k6's environment (`-e NAME=value`, `__ENV`), with defaults fixed
 * at bundle time from the target profile. A bad value stops the run in k6's init stage with a
 * message naming the variable. k6-safe: no Node.js API.
 */
import {
  type ClientMetadataField,
  type ConfirmedStatus,
  type OperationName,
  type OrderKind,
  STATUS,
} from "../../contract/schemas/names.ts";
import {
  DEFAULT_SCENARIO,
  isScenarioName,
  SCENARIO_NAMES,
  type ScenarioName,
  scenarioNamed,
} from "../scenarios/index.ts";

/** The scenarios' names, from their list (load/scenarios/index.ts). */
export const SCENARIOS = SCENARIO_NAMES;
export type { ScenarioName };

/** What the target profile says about the target, baked into a bundle (see load/harness/build.ts). */
export interface BundledProfile {
  /** Per order kind: the method and amount to order with, and the conditional fields required. */
  methods: Record<
    OrderKind,
    {
      methodID: number;
      amount: number;
      requires: { clientID: boolean; clientMetadata: readonly ClientMetadataField[] };
    }
  >;
  /** The confirmation code for each status a confirmation can lead to (when the profile has one). */
  codes: Partial<Record<ConfirmedStatus, string>> & { [STATUS.succeeded]: string };
  expectedStatus: Record<OperationName, string>;
  requestTimeoutMs: number;
}

export interface LoadConfig {
  baseUrl: string;
  apiKey: string;
  runId: string;
  /** The sink's callback URL (with its token); none: orders are made without metadata.webHook. */
  callbackUrl: string | undefined;
  scenario: ScenarioName;
  /** Orders (iterations) per second: the plateau of load and soak, the first step of stress. */
  rate: number;
  /** Plateau duration, k6 style ("30s", "5m"). */
  duration: string;
  /** Upper bound of VUs the arrival-rate executors may use. */
  maxVUs: number;
  /** VUs allocated before the start; undefined: enough for the rate at a 20 ms iteration plus think time. */
  preAllocatedVUs: number | undefined;
  /** Seconds a payer takes between the order and the confirmation code (k6 sleep), 0 for none. */
  thinkSeconds: number;
  /** Share of mobile-commerce flows in the mixed script, 0..1. */
  mobileShare: number;
  /** Shares of flows confirmed with the failure and the appeal code, 0..1 each. */
  failureShare: number;
  appealShare: number;
  /** p95 threshold per endpoint, ms. */
  p95Ms: number;
  /** Every answer is checked for success and status; every n-th (and a VU's first few) for every field. */
  fieldCheckEvery: number;
  profile: BundledProfile;
  /**
   * The client certificate for mTLS (H2H_CLIENT_CERT, H2H_CLIENT_KEY: PEM files the
   * script reads with k6's open() in its init stage; absolute paths, or relative to the script),
   * and the key's passphrase (H2H_CLIENT_KEY_PASSPHRASE, from k6's environment); becomes k6's tlsAuth.
   */
  tls: { certFile: string; keyFile: string; password: string | undefined } | undefined;
}

export class LoadConfigError extends Error {}

/**
 * Every n-th answer (and a VU's first few) is checked field by field; every answer for success and
 * status. 10 keeps the scripts' cost near a hand-written script's (bench:load-overhead).
 */
export const DEFAULT_FIELD_CHECK_EVERY = 10;

type Env = Record<string, string | undefined>;

function numberFrom(
  env: Env,
  name: string,
  fallback: number,
  check: (n: number) => boolean,
  rule: string,
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  // Plain decimal notation only: Number() also takes " 2", "0x10", "1e3" and "2.", which no one means.
  const value = /^\d+(?:\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || !check(value)) throw new LoadConfigError(`${name}="${raw}": ${rule}`);
  return value;
}

const share = (env: Env, name: string, fallback: number) =>
  numberFrom(env, name, fallback, (n) => n >= 0 && n <= 1, "must be a share between 0 and 1");

export function parseLoadConfig(env: Env, profile: BundledProfile): LoadConfig {
  const baseUrl = (env.H2H_BASE_URL ?? "").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+/.test(baseUrl))
    throw new LoadConfigError(`H2H_BASE_URL="${env.H2H_BASE_URL ?? ""}": must be an http(s) URL`);
  // Each API path is appended to it: a query or fragment would stand before the path.
  if (/[?#]/.test(baseUrl))
    throw new LoadConfigError(
      `H2H_BASE_URL="${env.H2H_BASE_URL ?? ""}": must have no query or fragment (scheme, host, port and an optional path prefix)`,
    );
  const apiKey = env.H2H_API_KEY ?? "";
  if (apiKey === "") throw new LoadConfigError("H2H_API_KEY is not set");
  const scenario = env.H2H_SCENARIO ?? DEFAULT_SCENARIO;
  if (!isScenarioName(scenario))
    throw new LoadConfigError(`H2H_SCENARIO="${scenario}": must be one of ${SCENARIOS.join(", ")}`);
  const duration = env.H2H_DURATION ?? "";
  if (duration !== "" && !/^(\d+(ms|s|m|h))+$/.test(duration)) {
    throw new LoadConfigError(`H2H_DURATION="${duration}": must be a k6 duration such as 30s, 5m or 1h30m`);
  }
  const failureShare = share(env, "H2H_FAILURE_SHARE", 0);
  const appealShare = share(env, "H2H_APPEAL_SHARE", 0);
  if (failureShare + appealShare > 1)
    throw new LoadConfigError("H2H_FAILURE_SHARE + H2H_APPEAL_SHARE must not exceed 1");
  if (failureShare > 0 && profile.codes[STATUS.failed_by_terminal] === undefined) {
    throw new LoadConfigError(
      `H2H_FAILURE_SHARE > 0, but the profile has no code for ${STATUS.failed_by_terminal}`,
    );
  }
  if (appealShare > 0 && profile.codes[STATUS.succeeded_by_appeal] === undefined) {
    throw new LoadConfigError(
      `H2H_APPEAL_SHARE > 0, but the profile has no code for ${STATUS.succeeded_by_appeal}`,
    );
  }
  const runId = env.H2H_RUN_ID ?? "";
  if (!/^[\w.-]{1,60}$/.test(runId))
    throw new LoadConfigError(`H2H_RUN_ID="${runId}": 1 to 60 of A-Z a-z 0-9 _ . -`);
  const { defaults, maxRate } = scenarioNamed(scenario);
  const rate = numberFrom(
    env,
    "H2H_RATE",
    defaults.rate,
    (n) => n > 0 && n <= 100_000,
    "must be a rate > 0 (orders per second)",
  );
  if (maxRate !== undefined && rate > maxRate.rate) {
    throw new LoadConfigError(
      `H2H_RATE="${env.H2H_RATE}": ${scenario} sends at most ${maxRate.rate} orders/s; use ${maxRate.instead} for more`,
    );
  }
  const callbackUrl = env.H2H_CALLBACK_URL ? env.H2H_CALLBACK_URL.replace(/\/+$/, "") : undefined;
  if (callbackUrl !== undefined && !/^https?:\/\/[^/]+/.test(callbackUrl)) {
    throw new LoadConfigError(`H2H_CALLBACK_URL="${callbackUrl}": must be an http(s) URL`);
  }
  const certFile = env.H2H_CLIENT_CERT ?? "";
  const keyFile = env.H2H_CLIENT_KEY ?? "";
  if ((certFile === "") !== (keyFile === ""))
    throw new LoadConfigError(
      `${certFile === "" ? "H2H_CLIENT_KEY is set without H2H_CLIENT_CERT" : "H2H_CLIENT_CERT is set without H2H_CLIENT_KEY"}: both are needed for a client certificate`,
    );
  const password = env.H2H_CLIENT_KEY_PASSPHRASE;
  const tls =
    certFile === ""
      ? undefined
      : { certFile, keyFile, password: password === undefined || password === "" ? undefined : password };
  return {
    baseUrl,
    apiKey,
    runId,
    tls,
    callbackUrl,
    scenario,
    rate,
    duration: duration || defaults.duration,
    maxVUs: numberFrom(
      env,
      "H2H_MAX_VUS",
      100,
      (n) => Number.isInteger(n) && n >= 1 && n <= 10_000,
      "must be a whole number from 1 to 10000",
    ),
    preAllocatedVUs:
      env.H2H_VUS === undefined || env.H2H_VUS === ""
        ? undefined
        : numberFrom(
            env,
            "H2H_VUS",
            1,
            (n) => Number.isInteger(n) && n >= 1 && n <= 10_000,
            "must be a whole number from 1 to 10000",
          ),
    thinkSeconds: numberFrom(
      env,
      "H2H_THINK_S",
      defaults.thinkSeconds,
      (n) => n >= 0 && n <= 60,
      "must be a number of seconds from 0 to 60",
    ),
    mobileShare: share(env, "H2H_MOBILE_SHARE", 0.5),
    failureShare,
    appealShare,
    p95Ms: numberFrom(env, "H2H_P95_MS", 500, (n) => n > 0, "must be a number of milliseconds > 0"),
    fieldCheckEvery: numberFrom(
      env,
      "H2H_FIELD_CHECK_EVERY",
      DEFAULT_FIELD_CHECK_EVERY,
      (n) => Number.isInteger(n) && n >= 1,
      "must be a whole number ≥ 1 (1: every answer)",
    ),
    profile,
  };
}
