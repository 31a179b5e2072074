/**
 * Every setting of the suite in one table: its variable, its flag (where it has one), the
 * commands that read it, the zod parser that checks it (its error wording too), its default and
 * one line of help. {@link parseSettings} reads a command's settings once into a frozen object;
 * each command's `--help` and docs/environment.md are generated from the same table.
 */
import { isAbsolute, resolve } from "node:path";
import * as z from "zod";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import {
  DEFAULT_CALLBACK_ATTEMPT_TIMEOUT_MS,
  DEFAULT_CALLBACK_RETRY_DELAYS_MS,
  DEFAULT_LIFETIME_SECONDS,
  DEFAULT_PROCESSING_DELAY_MS,
  DEFAULT_RETENTION_SECONDS,
  FAULTS,
} from "../fixtures/providers/reference/index.ts";
// The scenario list sits below this layer, k6-safe, so that load and this table read the one list.
import { isScenarioName, SCENARIO_NAMES } from "../load/scenarios/index.ts";
import { DEFAULT_SINK_MAX_CALLBACKS, DEFAULT_SINK_MAX_STORED_BYTES } from "../webhook-sink/index.ts";

export class SettingsError extends Error {
  override name = "SettingsError";
}

/** A variable that is set but empty or blank; names it and the fix. */
export function blankVariableError(name: string): SettingsError {
  return new SettingsError(
    `${name} is set but empty: give it a value, or unset it (unset ${name}) to use its default`,
  );
}

/** The commands whose `--help` lists settings, and the readers outside the npm scripts. */
export type SettingReader =
  | "certify"
  | "receiver"
  | "observe"
  | "load"
  | "load:build"
  | "sink"
  | "openapi"
  | "mutants"
  | "k6 scripts"
  | "provider image"
  | "every command";

export interface SettingSpec<Value = unknown> {
  variable: string;
  /** The flag, without `--`; it wins over the variable. */
  flag?: string;
  /** The commands that have the flag, when not every command in `readBy`. */
  flagIn?: readonly SettingReader[];
  /** The flag's value in the help (`N`, `URL`); default `VALUE`. */
  flagValue?: string;
  readBy: readonly SettingReader[];
  /**
   * Checks the (trimmed) text and turns it into the value. An issue's message is the whole
   * refusal: `$NAME` is the variable or flag given, `$VALUE` the text.
   */
  parse: z.ZodType<Value, string>;
  /** The value when neither the flag nor the variable is given. */
  fallback?: Value;
  /** A path: a relative one (the fallback too) resolves from the user's directory. */
  path?: true;
  /** A secret taken as it is, spaces included (never blank). */
  untrimmed?: true;
  /** Holds a secret (or may): a command the suite prints names the variable, never its value. */
  secret?: true;
  /**
   * Who parses the variable. `k6 scripts`: the bundled scripts (load/lib/config.ts, k6-safe, so no
   * zod), `npm run load` sets it from its flag and checks the flag here first; `provider image`:
   * the reference provider's image (fixtures/, below this table). Neither is read from the
   * environment of an npm script.
   */
  parsedBy?: "k6 scripts" | "provider image";
  /** The default as the help and docs say it. */
  defaultText: string;
  /** One line of help. */
  help: string;
  /** More for docs/environment.md than the help line says. */
  more?: string;
}

/** A refusal, said whole: `$NAME` becomes the variable or flag given, `$VALUE` its text. */
const refuse = (message: string) => ({ error: message });

function text(): z.ZodType<string, string> {
  return z.string();
}

/** The number a text spells in digits only, else NaN: Number() would also take "0x10" and "1e1". */
export const wholeNumberOf = (text: string): number => (/^\d+$/.test(text) ? Number(text) : Number.NaN);

/** Plain decimal notation only, as the k6 scripts read numbers. */
const decimalOf = (text: string): number => (/^\d+(?:\.\d+)?$/.test(text) ? Number(text) : Number.NaN);

function wholeNumber(min: number, max: number, message: string): z.ZodType<number, string> {
  return z
    .string()
    .transform(wholeNumberOf)
    .refine((n) => Number.isInteger(n) && n >= min && n <= max, refuse(message));
}

function decimal(check: (n: number) => boolean, message: string): z.ZodType<number, string> {
  return z
    .string()
    .transform(decimalOf)
    .refine((n) => Number.isFinite(n) && check(n), refuse(message));
}

function number(check: (n: number) => boolean, message: string): z.ZodType<number, string> {
  return z
    .string()
    .transform(Number)
    .refine((n) => Number.isFinite(n) && check(n), refuse(message));
}

const isHttpUrl = (value: string) => /^https?:\/\/[^/]+/.test(value);

/** A value the parser turns into something else or refuses with the message it throws. */
function custom<Value>(parse: (text: string) => Value): z.ZodType<Value, string> {
  return z.string().transform((value, ctx) => {
    try {
      return parse(value);
    } catch (error) {
      ctx.issues.push({ code: "custom", message: (error as Error).message, input: value });
      return z.NEVER;
    }
  });
}

/** A character as a reader can find it, never the secret around it. */
function describeCharacter(code: number): string {
  const hex = code.toString(16).toUpperCase().padStart(4, "0");
  if (code === 0x0a) return "a line feed (U+000A)";
  if (code === 0x0d) return "a carriage return (U+000D)";
  if (code < 0x20 || code === 0x7f) return `a control character (U+${hex})`;
  return `a character outside Latin-1 (U+${hex})`;
}

/**
 * A secret as an HTTP field value carries it (RFC 9110 §5.5: visible characters, spaces, tabs and
 * obs-text): a control byte in it is a copy-paste slip that no target would ever accept. The
 * refusal names the variable, the character and where it is, never the value.
 */
function fieldSafeSecret(use: string): z.ZodType<string, string> {
  return custom((value) => {
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if ((code < 0x20 && code !== 0x09) || code === 0x7f || code > 0xff)
        throw new Error(
          `$NAME holds ${describeCharacter(code)} at character ${i + 1} of ${value.length}: ${use}, and RFC 9110 §5.5 allows only visible characters, spaces and tabs there; set it again without it (its value is not shown)`,
        );
    }
    return value;
  });
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `NAME=value,NAME2=value2` into a map; `\,` is a comma inside a value. PORT is refused: the
 * suite chooses it.
 */
export function parseTargetEnv(text: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  if (text === undefined || text.trim() === "") return env;
  const pairs = text.split(/(?<!\\),/).map((pair) => pair.replace(/\\,/g, ","));
  for (const pair of pairs) {
    if (pair.trim() === "") continue;
    const equals = pair.indexOf("=");
    const name = (equals === -1 ? pair : pair.slice(0, equals)).trim();
    if (equals === -1 || !ENV_NAME.test(name)) {
      throw new SettingsError(
        `H2H_TARGET_ENV: "${pair.trim()}" is not NAME=value (expected comma-separated pairs, e.g. LOG_LEVEL=debug,FEATURE_X=on)`,
      );
    }
    if (name === "PORT")
      throw new SettingsError(
        "H2H_TARGET_ENV sets PORT: the suite sets PORT itself, to the port it expects the container on",
      );
    env[name] = pair.slice(equals + 1);
  }
  return env;
}

export type Readiness = { kind: "http"; path: string; anyStatus: boolean } | { kind: "log"; text: string };

export function parseReadiness(text: string | undefined): Readiness {
  if (text === undefined || text.trim() === "") return { kind: "http", path: "/", anyStatus: true };
  const value = text.trim();
  if (value.startsWith("log:")) {
    const logText = value.slice("log:".length);
    if (logText === "")
      throw new SettingsError('H2H_TARGET_READY "log:" names no text to wait for (log:TEXT)');
    return { kind: "log", text: logText };
  }
  if (value.startsWith("/")) return { kind: "http", path: value, anyStatus: false };
  throw new SettingsError(
    `H2H_TARGET_READY "${value}" is neither an HTTP path (e.g. /health) nor log:TEXT (e.g. log:listening on)`,
  );
}

/** The largest seed: what json-schema-faker and the generators take whole. */
export const MAX_SEED = 2 ** 31 - 1;
/** The most spec files H2H_WORKERS may run side by side. */
export const MAX_WORKERS = 64;
export const DEFAULT_STARTUP_S = 60;
export const DEFAULT_K6_IMAGE = "grafana/k6:1.3.0";
/** Periods in a load run's timeline, whatever its length: the plots' resolution. */
export const TIMELINE_POINTS = 120;
export const GENERATION_DEPTHS = ["quick", "thorough"] as const;

const setting = <const Spec extends SettingSpec>(spec: Spec): Spec => spec;

const TARGET: readonly SettingReader[] = ["certify", "load"];
const share = (variable: string, flag: string, fallback: string, help: string) =>
  setting({
    variable,
    flag,
    readBy: ["load", "k6 scripts"],
    parsedBy: "k6 scripts",
    parse: decimal((n) => n >= 0 && n <= 1, '$NAME="$VALUE": must be a share between 0 and 1'),
    defaultText: fallback,
    help,
  });
const providerNumber = (variable: string, fallback: number, help: string) =>
  setting({
    variable,
    readBy: ["provider image"],
    parsedBy: "provider image",
    parse: number(() => true, '$NAME="$VALUE" is not a number'),
    defaultText: String(fallback),
    help,
  });

/** The table: one entry per setting, in the order the help and the docs list them. */
export const SETTINGS = {
  baseUrl: setting({
    variable: "H2H_BASE_URL",
    flag: "base-url",
    flagValue: "URL",
    readBy: TARGET,
    parse: z
      .string()
      .refine(
        (value) => URL.canParse(value),
        // Stops here: the scheme is asked of a URL only.
        { ...refuse('$NAME "$VALUE" is not a URL (expected e.g. http://127.0.0.1:8080)'), abort: true },
      )
      .refine(
        (value) => /^https?:$/.test(new URL(value).protocol),
        refuse('$NAME "$VALUE" must start with http:// or https://'),
      )
      // Each API path is appended to the base URL: a query or fragment would stand before it.
      .refine(
        (value) => !/[?#]/.test(value),
        refuse(
          '$NAME "$VALUE" has a query or fragment (after "?" or "#"): the API paths (/api/v1/...) are appended to it, ' +
            "so give the scheme, host, port and an optional path prefix only (e.g. http://127.0.0.1:8080/tenant-1)",
        ),
      ),
    defaultText: "none: start the bundled reference provider (or the container of `H2H_TARGET_IMAGE`)",
    help: "the target's base URL",
  }),
  apiKey: setting({
    variable: "H2H_API_KEY",
    secret: true,
    readBy: [...TARGET, "observe"],
    parse: fieldSafeSecret("the key is sent in the Authorization header"),
    defaultText: "reference: `sandbox-key-merchant-1`; required for any other target",
    help: "the merchant's API key",
  }),
  secondApiKey: setting({
    variable: "H2H_API_KEY_2",
    secret: true,
    readBy: ["certify"],
    parse: fieldSafeSecret("the key is sent in the Authorization header"),
    defaultText:
      "reference: `sandbox-key-merchant-2`; else those checks are skipped, by name, with the reason",
    help: "a second merchant's key, for the cross-merchant checks",
  }),
  callbackSecret: setting({
    variable: "H2H_CALLBACK_SECRET",
    secret: true,
    readBy: ["certify", "load", "sink", "receiver", "observe"],
    parse: fieldSafeSecret("a provider configures the secret as text"),
    defaultText:
      "reference: `sandbox-callback-secret`; required for any other target whose profile signs callbacks",
    help: "the secret callback signatures are checked with",
    more: 'Without it, a target whose profile signs callbacks (`callbacks.signature.scheme` other than `"none"`) is refused (exit `64`), never judged with every signature failing.',
  }),
  profile: setting({
    variable: "H2H_PROFILE",
    readBy: ["certify", "load", "load:build", "sink", "openapi", "receiver", "observe"],
    parse: text(),
    fallback: REFERENCE_PROFILE_PATH,
    path: true,
    defaultText: "`fixtures/profiles/reference.json`",
    help: "the target profile file (relative: from your directory)",
  }),
  reportDir: setting({
    variable: "H2H_REPORT_DIR",
    readBy: ["certify", "load", "mutants", "receiver", "observe"],
    parse: text(),
    fallback: "reports",
    path: true,
    defaultText: "`reports/` (`reports/receiver/` for certify:receiver)",
    help: "where reports go (relative: from your directory)",
  }),
  sinkPort: setting({
    variable: "H2H_SINK_PORT",
    flag: "port",
    flagIn: ["sink"],
    readBy: ["certify", "load", "sink", "observe"],
    parse: wholeNumber(0, 65_535, '$NAME "$VALUE" is not a port number (0-65535)'),
    fallback: 0,
    defaultText: "a free port",
    help: "the port the webhook sink listens on (a tunnel's target)",
  }),
  sinkPublicUrl: setting({
    variable: "H2H_SINK_PUBLIC_URL",
    flag: "public-url",
    flagIn: ["sink"],
    readBy: ["certify", "load", "sink", "observe"],
    parse: z
      .string()
      .refine((value) => isHttpUrl(value) && URL.canParse(value), {
        ...refuse('$NAME "$VALUE" is not an http(s) URL'),
        abort: true,
      })
      // The callback URL's segments go after its path: a query or fragment would end up before them.
      .refine(
        (value) => !/[?#]/.test(value),
        refuse(
          '$NAME "$VALUE" has a query or fragment, which the callback URLs cannot carry: give the base URL alone (a path is kept, e.g. https://tunnel.example/abc/)',
        ),
      ),
    defaultText: "the sink's loopback URL",
    help: "the base URL put in `metadata.webHook` (a tunnel's public URL; a path prefix is kept)",
    more: "A tunnel that forwards the whole path works: the sink takes callbacks under the URL's path as well as at its root. A query or fragment is refused (exit `64`).",
  }),
  sinkToken: setting({
    variable: "H2H_SINK_TOKEN",
    secret: true,
    flag: "token",
    readBy: ["sink"],
    parse: text(),
    defaultText: "generated and printed",
    help: "the secret path token of the callback URLs",
  }),
  sinkDataDir: setting({
    variable: "H2H_SINK_DATA_DIR",
    flag: "data-dir",
    readBy: ["sink"],
    parse: text(),
    fallback: ".sink-data",
    path: true,
    defaultText: "`.sink-data/`",
    help: "where the sink stores callbacks",
  }),
  sinkTlsCert: setting({
    variable: "H2H_SINK_TLS_CERT",
    flag: "tls-cert",
    readBy: ["sink"],
    parse: text(),
    path: true,
    defaultText: "none: plain HTTP",
    help: "a certificate (PEM, may carry its chain) to serve HTTPS with",
  }),
  sinkTlsKey: setting({
    variable: "H2H_SINK_TLS_KEY",
    flag: "tls-key",
    readBy: ["sink"],
    parse: text(),
    path: true,
    defaultText: "none: plain HTTP",
    help: "the private key (PEM) of that certificate",
  }),
  sinkMaxCallbacks: setting({
    variable: "H2H_SINK_MAX_CALLBACKS",
    readBy: ["sink"],
    parse: wholeNumber(1, 10_000_000, '$NAME "$VALUE" is not a count of callbacks: a whole number from 1'),
    fallback: DEFAULT_SINK_MAX_CALLBACKS,
    defaultText: DEFAULT_SINK_MAX_CALLBACKS.toLocaleString("en-US"),
    help: "the most callbacks the sink keeps in memory; past it the oldest leave memory (they stay on disk)",
  }),
  sinkMaxMiB: setting({
    variable: "H2H_SINK_MAX_MB",
    readBy: ["sink"],
    parse: wholeNumber(1, 4096, '$NAME "$VALUE" is not a size in MiB: a whole number from 1 to 4096'),
    fallback: DEFAULT_SINK_MAX_STORED_BYTES / (1024 * 1024),
    defaultText: String(DEFAULT_SINK_MAX_STORED_BYTES / (1024 * 1024)),
    help: "the most MiB of callback bodies the sink keeps; past it a callback is refused (503), counted, and not stored",
  }),
  seed: setting({
    variable: "H2H_SEED",
    flag: "seed",
    flagValue: "N",
    readBy: ["certify"],
    // Plain decimal digits only: Number() would take 0x10 as 16 and 1e3 as 1000.
    parse: z
      .string()
      .refine(
        (text) => /^\d+$/.test(text),
        refuse(`$NAME "$VALUE" is not a seed: an integer from 0 to ${MAX_SEED}`),
      )
      .transform(Number)
      .refine(
        (seed) => Number.isSafeInteger(seed) && seed >= 0 && seed <= MAX_SEED,
        refuse(`$NAME "$VALUE" is not a seed: an integer from 0 to ${MAX_SEED}`),
      ),
    defaultText: "drawn, and printed",
    help: "the seed of the generated inputs; the same seed sends the same requests",
  }),
  depth: setting({
    variable: "H2H_DEPTH",
    flag: "depth",
    flagValue: "quick|thorough",
    readBy: ["certify"],
    parse: custom((value) => {
      const depth = GENERATION_DEPTHS.find((name) => name === value.toLowerCase());
      if (!depth) throw new Error(`$NAME "$VALUE" is not a depth: one of ${GENERATION_DEPTHS.join(", ")}`);
      return depth;
    }),
    fallback: "quick",
    defaultText: "`quick`",
    help: "`quick` or `thorough`: how many generated orders and probes",
  }),
  workers: setting({
    variable: "H2H_WORKERS",
    readBy: ["certify"],
    parse: wholeNumber(
      1,
      MAX_WORKERS,
      `$NAME "$VALUE" is not a number of spec files to run side by side (1-${MAX_WORKERS}): give one, or unset it for the default`,
    ),
    defaultText: "certify: 4; the `contract` Vitest project: one per core, at least 2",
    help: `how many spec files run side by side (1-${MAX_WORKERS})`,
    more: "certify runs them in its own process, each file's tests one after another; the `contract` Vitest project runs them in as many worker threads, each of which imports the contract once (about half a second of CPU).",
  }),
  targetImage: setting({
    variable: "H2H_TARGET_IMAGE",
    readBy: TARGET,
    parse: text(),
    defaultText: "none",
    help: "a provider image to start (listening on `$PORT`, host network) and certify or load-test",
    more: "See [Certify a provider image](containers.md).",
  }),
  targetEnv: setting({
    variable: "H2H_TARGET_ENV",
    secret: true,
    readBy: TARGET,
    parse: custom(parseTargetEnv),
    defaultText: "none",
    help: "extra environment for that container: `NAME=value,NAME2=value2` (`\\,` is a comma in a value)",
    more: "`PORT` is the suite's.",
  }),
  targetReady: setting({
    variable: "H2H_TARGET_READY",
    readBy: TARGET,
    parse: custom(parseReadiness),
    defaultText: "any HTTP answer on `/`",
    help: "when the container is ready: an HTTP path answering below 500 (`/health`), or `log:TEXT`",
  }),
  targetStartupS: setting({
    variable: "H2H_TARGET_STARTUP_S",
    readBy: TARGET,
    parse: number((s) => s > 0 && s <= 3_600, '$NAME "$VALUE" is not a number of seconds (0 < s ≤ 3600)'),
    fallback: DEFAULT_STARTUP_S,
    defaultText: String(DEFAULT_STARTUP_S),
    help: "how long to wait for the container to be ready, in seconds",
  }),
  baselineReport: setting({
    variable: "H2H_BASELINE_REPORT",
    readBy: ["certify"],
    parse: text(),
    path: true,
    defaultText: "none",
    help: "a previous run's `h2h-certify.json`: the console and HTML show what changed since",
    more: "See [Comparing runs](ci.md#comparing-runs).",
  }),
  attestKey: setting({
    variable: "H2H_ATTEST_KEY",
    flag: "attest",
    flagValue: "KEY",
    readBy: ["certify"],
    // The PEM itself may be the value (a CI secret): shown nowhere, repeated by the variable's name.
    secret: true,
    parse: text(),
    defaultText: "none: no attestation",
    help: "sign the verdict: the private key (Ed25519 or ECDSA P-256, PEM PKCS#8) as a file path (relative: from your directory) or the PEM itself; writes `h2h-certify.intoto.jsonl` beside the reports",
    more: "See [A signed verdict](attest.md).",
  }),
  caFile: setting({
    variable: "H2H_CA_FILE",
    readBy: [...TARGET, "observe"],
    parse: text(),
    path: true,
    defaultText: "none: the system's CAs only",
    help: "extra trusted CA certificates (PEM; may hold several) for an `https://` target",
    more: "Trusted besides the system's; see [TLS and mTLS](tls.md).",
  }),
  clientCert: setting({
    variable: "H2H_CLIENT_CERT",
    readBy: [...TARGET, "observe"],
    parse: text(),
    path: true,
    defaultText: "none: no client certificate",
    help: "client certificate (PEM, may carry its chain) for mTLS, with `H2H_CLIENT_KEY`",
  }),
  clientKey: setting({
    variable: "H2H_CLIENT_KEY",
    readBy: [...TARGET, "observe"],
    parse: text(),
    path: true,
    defaultText: "none",
    help: "the client certificate's private key (PEM): both or neither",
  }),
  clientKeyPassphrase: setting({
    variable: "H2H_CLIENT_KEY_PASSPHRASE",
    secret: true,
    readBy: [...TARGET, "observe"],
    parse: text(),
    untrimmed: true,
    defaultText: "none",
    help: "the passphrase of an encrypted `H2H_CLIENT_KEY` (a secret: masked everywhere)",
  }),
  k6Image: setting({
    variable: "H2H_K6_IMAGE",
    readBy: ["load"],
    parse: text(),
    fallback: DEFAULT_K6_IMAGE,
    defaultText: `\`${DEFAULT_K6_IMAGE}\``,
    help: "the k6 image when no k6 is installed and a Docker engine answers (never pulled when present)",
    more: "See [k6 in a container](load.md#k6-in-a-container).",
  }),
  timelinePoints: setting({
    variable: "H2H_TIMELINE_POINTS",
    readBy: ["load"],
    parse: wholeNumber(10, 2000, '$NAME="$VALUE": must be a whole number from 10 to 2000'),
    fallback: TIMELINE_POINTS,
    defaultText: `${TIMELINE_POINTS}, whatever the run's length`,
    help: "periods in a load run's timeline and plots (10-2000)",
  }),
  debug: setting({
    variable: "H2H_DEBUG",
    readBy: ["every command"],
    parse: text(),
    defaultText: "unset",
    help: "`1`: print the stack of an unexpected error",
  }),

  // The bundled k6 scripts' own variables: `npm run load` sets them from its flags.
  scenario: setting({
    variable: "H2H_SCENARIO",
    flag: "scenario",
    readBy: ["load", "k6 scripts"],
    parsedBy: "k6 scripts",
    parse: custom((value) => {
      if (!isScenarioName(value))
        throw new Error(`$NAME="$VALUE": must be one of ${SCENARIO_NAMES.join(", ")}`);
      return value;
    }),
    fallback: "smoke",
    defaultText: "`smoke`",
    help: "the load shape: one of the [scenarios](load.md#scenarios)",
  }),
  rate: setting({
    variable: "H2H_RATE",
    flag: "rate",
    readBy: ["load", "k6 scripts"],
    parsedBy: "k6 scripts",
    parse: decimal((n) => n > 0 && n <= 100_000, '$NAME="$VALUE": must be a rate > 0 (orders per second)'),
    defaultText: "smoke 1.5 (at most 2); else 10",
    help: "orders per second: the plateau, or stress's first step",
  }),
  duration: setting({
    variable: "H2H_DURATION",
    flag: "duration",
    readBy: ["load", "k6 scripts"],
    parsedBy: "k6 scripts",
    parse: z
      .string()
      .refine(
        (value) => /^(\d+(ms|s|m|h))+$/.test(value),
        refuse('$NAME="$VALUE": must be a k6 duration such as 30s, 5m or 1h30m'),
      ),
    defaultText: "the scenario's",
    help: "the plateau's duration, k6 style (`30s`, `5m`)",
  }),
  thinkSeconds: setting({
    variable: "H2H_THINK_S",
    flag: "think",
    readBy: ["load", "k6 scripts"],
    parsedBy: "k6 scripts",
    parse: decimal((n) => n >= 0 && n <= 60, '$NAME="$VALUE": must be a number of seconds from 0 to 60'),
    defaultText: "smoke 1, else 0",
    help: "seconds between an order and its confirmation code",
  }),
  vus: setting({
    variable: "H2H_VUS",
    flag: "vus",
    readBy: ["load", "k6 scripts"],
    parsedBy: "k6 scripts",
    parse: decimal(
      (n) => Number.isInteger(n) && n >= 1 && n <= 10_000,
      '$NAME="$VALUE": must be a whole number from 1 to 10000',
    ),
    defaultText: "enough for the rate",
    help: "virtual users allocated at the start",
  }),
  maxVus: setting({
    variable: "H2H_MAX_VUS",
    flag: "max-vus",
    readBy: ["load", "k6 scripts"],
    parsedBy: "k6 scripts",
    parse: decimal(
      (n) => Number.isInteger(n) && n >= 1 && n <= 10_000,
      '$NAME="$VALUE": must be a whole number from 1 to 10000',
    ),
    defaultText: "100",
    help: "the most virtual users",
  }),
  mobileShare: share("H2H_MOBILE_SHARE", "mobile-share", "0.5", "share of mobile-commerce orders (0..1)"),
  failureShare: share("H2H_FAILURE_SHARE", "failure-share", "0", "share of orders confirmed to fail (0..1)"),
  appealShare: share(
    "H2H_APPEAL_SHARE",
    "appeal-share",
    "0",
    "share of orders failed then won on appeal (0..1)",
  ),
  p95Ms: setting({
    variable: "H2H_P95_MS",
    flag: "p95",
    readBy: ["load", "k6 scripts"],
    parsedBy: "k6 scripts",
    parse: decimal((n) => n > 0, '$NAME="$VALUE": must be a number of milliseconds > 0'),
    defaultText: "500",
    help: "the p95 latency threshold per endpoint, in ms",
  }),
  fieldCheckEvery: setting({
    variable: "H2H_FIELD_CHECK_EVERY",
    flag: "field-check-every",
    readBy: ["load", "k6 scripts"],
    parsedBy: "k6 scripts",
    parse: decimal(
      (n) => Number.isInteger(n) && n >= 1,
      '$NAME="$VALUE": must be a whole number ≥ 1 (1: every answer)',
    ),
    defaultText: "10",
    help: "check every field of every N-th answer and a VU's first 3 (1: of every answer)",
  }),
  runId: setting({
    variable: "H2H_RUN_ID",
    flag: "run-id",
    flagIn: ["load"],
    readBy: ["load", "k6 scripts"],
    parsedBy: "k6 scripts",
    parse: z
      .string()
      .refine(
        (value) => /^[\w.-]{1,60}$/.test(value),
        refuse('$NAME="$VALUE": 1 to 60 of A-Z a-z 0-9 _ . -'),
      ),
    defaultText: "generated by `npm run load`",
    help: "the run's id, which tags its orders and callbacks (with `--delivery-from-sink`: the run to count)",
  }),
  deliveryFromSink: setting({
    variable: "H2H_DELIVERY_FROM_SINK",
    flag: "delivery-from-sink",
    readBy: ["load"],
    parse: z
      .string()
      .refine(
        (value) => isHttpUrl(value) && /\/callbacks\/[A-Za-z0-9_-]{16,128}\/?$/.test(new URL(value).pathname),
        refuse(
          '$NAME "$VALUE" is not a sink callback URL: give the H2H_CALLBACK_URL the k6 runs used (<sink>/callbacks/<token>)',
        ),
      ),
    defaultText: "none: run k6",
    help: "run no k6: compute run `--run-id`'s callback delivery and latency from this sink (the runs' `H2H_CALLBACK_URL`)",
    more: "For distributed runs (the k6 operator, execution segments): see [load.md](load.md#distributed-runs).",
  }),
  callbackUrl: setting({
    variable: "H2H_CALLBACK_URL",
    readBy: ["k6 scripts"],
    parsedBy: "k6 scripts",
    parse: z.string().refine(isHttpUrl, refuse('$NAME="$VALUE": must be an http(s) URL')),
    defaultText: "set by `npm run load`; none: orders without `metadata.webHook`",
    help: "the sink's callback URL (with its token)",
  }),
  summaryPath: setting({
    variable: "H2H_SUMMARY_PATH",
    readBy: ["k6 scripts"],
    parsedBy: "k6 scripts",
    parse: text(),
    defaultText: "set by `npm run load`",
    help: "where the script writes k6's summary as JSON",
  }),

  // The reference provider's image reads these (with PORT and HOST); see containers.md.
  providerLifetimeS: providerNumber(
    "H2H_PROVIDER_LIFETIME_S",
    DEFAULT_LIFETIME_SECONDS,
    "how long an order awaits confirmation, in seconds",
  ),
  providerRetentionS: providerNumber(
    "H2H_PROVIDER_RETENTION_S",
    DEFAULT_RETENTION_SECONDS,
    "how long a final order is kept, in seconds",
  ),
  providerProcessingDelayMs: providerNumber(
    "H2H_PROVIDER_PROCESSING_DELAY_MS",
    DEFAULT_PROCESSING_DELAY_MS,
    "the delay before each status change after confirmation, in ms",
  ),
  providerCallbackTimeoutMs: providerNumber(
    "H2H_PROVIDER_CALLBACK_TIMEOUT_MS",
    DEFAULT_CALLBACK_ATTEMPT_TIMEOUT_MS,
    "the timeout of one callback attempt, in ms",
  ),
  providerCallbackRetriesMs: setting({
    variable: "H2H_PROVIDER_CALLBACK_RETRIES_MS",
    readBy: ["provider image"],
    parsedBy: "provider image",
    parse: custom((value) =>
      value
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part !== "")
        .map((part) => {
          if (!Number.isFinite(Number(part))) throw new Error(`$NAME: "${part}" is not a number`);
          return Number(part);
        }),
    ),
    defaultText: DEFAULT_CALLBACK_RETRY_DELAYS_MS.join(","),
    help: "comma-separated waits between callback attempts, in ms",
  }),
  providerFaults: setting({
    variable: "H2H_PROVIDER_FAULTS",
    readBy: ["provider image"],
    parsedBy: "provider image",
    parse: custom((value) => {
      const faults = value
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part !== "");
      const unknown = faults.filter((name) => !FAULTS.has(name));
      if (unknown.length > 0)
        throw new Error(
          `$NAME: unknown fault${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => `"${n}"`).join(", ")} ` +
            "(npm run provider -- --list-faults lists them)",
        );
      return faults;
    }),
    defaultText: "none",
    help: "comma-separated fault names to switch on",
  }),

  // The merchant's side: `npm run certify:receiver` plays the provider's callbacks towards these.
  receiverUrl: setting({
    variable: "H2H_RECEIVER_URL",
    flag: "receiver-url",
    flagValue: "URL",
    readBy: ["receiver"],
    parse: z
      .string()
      .refine((value) => URL.canParse(value), {
        ...refuse('$NAME "$VALUE" is not a URL (expected e.g. http://127.0.0.1:3000/webhooks/h2h)'),
        abort: true,
      })
      .refine(
        (value) => /^https?:$/.test(new URL(value).protocol),
        refuse('$NAME "$VALUE" must start with http:// or https://'),
      ),
    defaultText: "none: start the bundled reference receiver (its secret: the reference one)",
    help: "the merchant's webhook receiver URL, which the receiver battery sends callbacks to",
    more: "See [Certify a webhook receiver](receiver.md).",
  }),
  receiverOrders: setting({
    variable: "H2H_RECEIVER_ORDERS",
    readBy: ["receiver"],
    parse: text(),
    path: true,
    defaultText: "none: order ids the receiver has never seen, and the report says so",
    help: 'a JSON file of the orders the receiver\'s system knows: `[{"id", "amount", "kind"}]`',
  }),

  // Observe mode: `npm run observe`, a recording proxy between a merchant's integration and the provider.
  observeUpstream: setting({
    variable: "H2H_OBSERVE_UPSTREAM",
    flag: "upstream",
    readBy: ["observe"],
    parse: z
      .string()
      .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
        ...refuse(
          '$NAME "$VALUE" is not an http(s) URL (expected e.g. https://sandbox.example-provider.test)',
        ),
        abort: true,
      })
      .refine(
        (value) => !/[?#]/.test(value),
        refuse(
          '$NAME "$VALUE" has a query or fragment: give the scheme, host, port and an optional path prefix',
        ),
      ),
    defaultText: "none: start the bundled reference provider as the upstream",
    help: "the provider the proxy forwards to (its TLS and mTLS: H2H_CA_FILE, H2H_CLIENT_CERT, H2H_CLIENT_KEY)",
  }),
  observePort: setting({
    variable: "H2H_OBSERVE_PORT",
    flag: "port",
    readBy: ["observe"],
    parse: wholeNumber(0, 65_535, '$NAME "$VALUE" is not a port number (0-65535)'),
    fallback: 0,
    defaultText: "a free port",
    help: "the loopback port the proxy listens on",
  }),
  observeDurationS: setting({
    variable: "H2H_OBSERVE_DURATION_S",
    flag: "duration",
    readBy: ["observe"],
    parse: wholeNumber(1, 86_400, '$NAME "$VALUE" is not a number of seconds (1-86400)'),
    defaultText: "none: until Ctrl-C (or --until-idle)",
    help: "stop observing after this many seconds, then judge and write the reports",
  }),
  observeUntilIdleS: setting({
    variable: "H2H_OBSERVE_UNTIL_IDLE_S",
    flag: "until-idle",
    readBy: ["observe"],
    parse: wholeNumber(1, 86_400, '$NAME "$VALUE" is not a number of seconds (1-86400)'),
    defaultText: "none: until Ctrl-C (or --duration)",
    help: "stop once no request or callback passed for this many seconds (after the first request)",
  }),
} as const;

export type SettingKey = keyof typeof SETTINGS;
type Table = typeof SETTINGS;

/** A setting's value: with a fallback, always there; else undefined when not given. */
type ValueOf<Spec> = Spec extends { parse: z.ZodType<infer Value, string> }
  ? Spec extends { fallback: unknown }
    ? Value
    : Value | undefined
  : never;

/** Where a value came from. */
export type SettingSource = "flag" | "variable" | "default";

/** The keys an npm script reads itself (the k6 scripts' are given as flags only). */
export type RunSettingValues = { readonly [Key in SettingKey]: ValueOf<Table[Key]> };

/** A command's settings, parsed once: frozen; the settings it does not read are undefined. */
export type RunSettings = RunSettingValues & {
  /** The user's directory: relative paths were resolved from it. */
  readonly cwd: string;
  readonly sources: Readonly<Partial<Record<SettingKey, SettingSource>>>;
  /** The text each given setting was given as (a re-run command repeats it; values may be parsed objects). */
  readonly texts: Readonly<Partial<Record<SettingKey, string>>>;
};

type Env = Record<string, string | undefined>;

export interface ParseSettingsOptions {
  /** The command whose settings are read; default: every setting an npm script reads. */
  command?: SettingReader;
  /** The flags given, by setting; a flag wins over its variable. */
  flags?: Partial<Record<SettingKey, string | number | undefined>>;
  /** Where relative paths resolve from (default: the user's directory). */
  cwd?: string;
}

/**
 * The directory the user ran the command in: relative paths (H2H_PROFILE, H2H_REPORT_DIR) resolve
 * from it. `npm run` changes into the package root and says where it came from in INIT_CWD.
 */
export function userDirectory(env: Env): string {
  const value = env.INIT_CWD;
  if (value !== undefined && value.trim() === "") throw blankVariableError("INIT_CWD");
  return value === undefined ? process.cwd() : value.trim();
}

function refusal(said: string, name: string, value: string, fromFlag: boolean): string {
  // A flag is typed `--rate 0`: `$NAME="$VALUE"` (a variable's spelling) reads `--rate "0"`.
  return (fromFlag ? said.replaceAll('$NAME="', '$NAME "') : said)
    .replaceAll("$NAME", name)
    .replaceAll("$VALUE", value);
}

/** One setting from its text; a bad value is a SettingsError naming `name` (variable or flag). */
function parseOne(key: SettingKey, raw: string, name: string, fromFlag: boolean): unknown {
  const spec: SettingSpec = SETTINGS[key];
  if (raw.trim() === "")
    throw fromFlag
      ? new SettingsError(`${name} is given but empty: give it a value, or leave it out for its default`)
      : blankVariableError(name);
  const value = spec.untrimmed ? raw : raw.trim();
  const result = spec.parse.safeParse(value);
  if (!result.success) {
    const [issue] = result.error.issues;
    throw new SettingsError(refusal(issue?.message ?? '$NAME "$VALUE" is not valid', name, value, fromFlag));
  }
  return result.data;
}

function readsSetting(spec: SettingSpec, command: SettingReader | undefined): boolean {
  if (command === undefined) return spec.parsedBy === undefined;
  return spec.readBy.includes(command) || spec.readBy.includes("every command");
}

/**
 * Reads a command's settings from the environment and its flags, each checked (a bad one is a
 * SettingsError naming it), into one frozen object. Settings the command does not read are left
 * undefined; a k6 script's setting comes from its flag only.
 */
export function parseSettings(env: Env, options: ParseSettingsOptions = {}): RunSettings {
  const cwd = options.cwd ?? userDirectory(env);
  const values: Record<string, unknown> = {};
  const sources: Partial<Record<SettingKey, SettingSource>> = {};
  const texts: Partial<Record<SettingKey, string>> = {};
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const spec: SettingSpec = SETTINGS[key];
    if (!readsSetting(spec, options.command)) {
      values[key] = undefined;
      continue;
    }
    const flag = options.flags?.[key];
    const variable = spec.parsedBy === undefined ? env[spec.variable] : undefined;
    let value: unknown;
    if (flag !== undefined) {
      value = parseOne(key, String(flag), `--${spec.flag ?? key}`, true);
      sources[key] = "flag";
      texts[key] = String(flag);
    } else if (variable !== undefined) {
      value = parseOne(key, variable, spec.variable, false);
      sources[key] = "variable";
      texts[key] = variable;
    } else {
      value = spec.fallback;
      if (value !== undefined) sources[key] = "default";
    }
    if (spec.path && typeof value === "string" && !isAbsolute(value)) value = resolve(cwd, value);
    values[key] = value;
  }
  checkTogether(values as RunSettingValues, sources);
  return Object.freeze({
    ...values,
    cwd,
    sources: Object.freeze(sources),
    texts: Object.freeze(texts),
  }) as RunSettings;
}

/** The rules between settings, once each is valid on its own. */
function checkTogether(values: RunSettingValues, sources: Partial<Record<SettingKey, SettingSource>>): void {
  if (values.clientKeyPassphrase !== undefined && values.clientKey === undefined)
    throw new SettingsError(
      "H2H_CLIENT_KEY_PASSPHRASE is set without H2H_CLIENT_KEY: set the client key (and H2H_CLIENT_CERT), or unset the passphrase",
    );
  if (values.targetImage === undefined) {
    const others: string[] = (["targetEnv", "targetReady"] as const)
      .filter((key) => values[key] !== undefined)
      .map((key) => SETTINGS[key].variable);
    // The startup time has a fallback: only a given one counts.
    if (sources.targetStartupS === "variable") others.push(SETTINGS.targetStartupS.variable);
    if (others.length > 0)
      throw new SettingsError(`${others.join(", ")} set without H2H_TARGET_IMAGE: set the image to start`);
  } else if (values.baseUrl !== undefined) {
    throw new SettingsError(
      "H2H_BASE_URL and H2H_TARGET_IMAGE are both set: certify either a running target or an image, not both",
    );
  }
}

/** One setting parsed from an environment alone (a k6 script's too): for a reader outside the npm scripts. */
export function parseSetting<Key extends SettingKey>(key: Key, env: Env): RunSettingValues[Key] {
  const spec: SettingSpec = SETTINGS[key];
  const raw = env[spec.variable];
  return (
    raw === undefined ? spec.fallback : parseOne(key, raw, spec.variable, false)
  ) as RunSettingValues[Key];
}

/** The variable or flag a value came from, as a refusal names it. */
export function sourceName(settings: RunSettings, key: SettingKey): string {
  const spec: SettingSpec = SETTINGS[key];
  return settings.sources[key] === "flag" ? `--${spec.flag ?? key}` : spec.variable;
}

const ENTRIES = Object.entries(SETTINGS) as [SettingKey, SettingSpec][];

/** The `--help` lines of a command's settings: variable (and flag), help, default. */
export function environmentHelp(command: SettingReader): string[] {
  const entries = ENTRIES.filter(
    ([, spec]) =>
      (spec.readBy.includes(command) || spec.readBy.includes("every command")) && spec.parsedBy === undefined,
  );
  if (entries.length === 0) return [];
  const names = entries.map(([, spec]) => spec.variable);
  const width = Math.max(...names.map((name) => name.length)) + 2;
  return entries.map(([, spec]) => {
    const flag = spec.flag && (spec.flagIn ?? spec.readBy).includes(command) ? ` (--${spec.flag} wins)` : "";
    return `${spec.variable.padEnd(width)}${plain(spec.help)}${flag} (default: ${plain(spec.defaultText)})`;
  });
}

/** Markdown's backticks and links left out, for a terminal. */
const plain = (text: string) => text.replace(/`/g, "").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1");

const cell = (text: string) => text.replaceAll("|", "\\|");

/** docs/environment.md's table of settings, between its `settings:start` and `settings:end` marks. */
export function settingsMarkdown(): string {
  const readers = (spec: SettingSpec) => {
    const flagIn = spec.flagIn ?? spec.readBy.filter((r) => r !== "k6 scripts");
    return spec.readBy
      .map((r) => (spec.flag && flagIn.includes(r) ? `${r} (\`--${spec.flag}\`)` : r))
      .join(", ");
  };
  return [
    "| variable | read by | meaning | default |",
    "|---|---|---|---|",
    ...ENTRIES.map(
      ([, spec]) =>
        `| \`${spec.variable}\` | ${cell(readers(spec))} | ${cell(spec.more ? `${spec.help}. ${spec.more}` : spec.help)} | ${cell(spec.defaultText)} |`,
    ),
  ].join("\n");
}

const DOCS_START = "<!-- settings:start -->";
const DOCS_END = "<!-- settings:end -->";

/** docs/environment.md with its settings block replaced by the table's; the rest as it is (`npm run docs`). */
export function withSettingsTable(doc: string): string {
  const start = doc.indexOf(DOCS_START);
  const end = doc.indexOf(DOCS_END);
  if (start === -1 || end < start) throw new Error(`no ${DOCS_START} … ${DOCS_END} block`);
  return `${doc.slice(0, start + DOCS_START.length)}\n${settingsMarkdown()}\n${doc.slice(end)}`;
}
