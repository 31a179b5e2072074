/**
 * The run's settings from the environment (DESIGN §1), checked before anything starts: a bad
 * value is refused with the variable's name.
 */
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readTlsFiles, TlsConfigError, type TlsFiles, type TlsMaterial } from "../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import { REFERENCE_API_KEYS, REFERENCE_CALLBACK_SECRET } from "../fixtures/reference-provider/index.ts";

export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

export class SettingsError extends Error {
  override name = "SettingsError";
}

export interface Settings {
  /** undefined: start the bundled reference provider (or the target image, when one is set). */
  baseUrl: string | undefined;
  /** H2H_TARGET_IMAGE: a provider image to start as the target (see target-container.ts). */
  targetImage: string | undefined;
  apiKey: string | undefined;
  secondApiKey: string | undefined;
  callbackSecret: string | undefined;
  profilePath: string;
  reportDir: string;
  /** Where the webhook sink listens (0: a free port) and the URL put in metadata.webHook. */
  sinkPort: number;
  sinkPublicUrl: string | undefined;
  /** issue 12: TLS files (H2H_CA_FILE, H2H_CLIENT_CERT, H2H_CLIENT_KEY, H2H_CLIENT_KEY_PASSPHRASE); read by readTlsSettings. */
  tls: TlsFiles;
}

type Env = Record<string, string | undefined>;

function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name];
  // issue 12 (no false green): set but blank is a mistake (a CI secret that is missing), never "unset".
  if (value !== undefined && value.trim() === "") throw blankVariableError(name);
  return value === undefined ? undefined : value.trim();
}

/** issue 12: a variable that is set but empty or blank; names it and the fix. */
export function blankVariableError(name: string): SettingsError {
  return new SettingsError(
    `${name} is set but empty: give it a value, or unset it (unset ${name}) to use its default`,
  );
}

function pathFrom(env: Env, name: string, fallback: string, cwd: string): string {
  const value = nonEmpty(env, name);
  if (value === undefined) return fallback;
  return isAbsolute(value) ? value : resolve(cwd, value);
}

// --- the user's directory (issue 11 §7) -----------------------------------------------------------
/**
 * The directory the user ran the command in: relative paths (H2H_PROFILE, H2H_REPORT_DIR) resolve
 * from it. `npm run` changes into the package root and says where it came from in INIT_CWD.
 */
export function userDirectory(env: Env = process.env): string {
  return nonEmpty(env, "INIT_CWD") ?? process.cwd();
}

/** The number a variable spells in digits only, else NaN: Number() would also take "0x10" and "1e1". */
export const wholeNumberOf = (text: string): number => (/^\d+$/.test(text) ? Number(text) : Number.NaN);

/** The profile file H2H_PROFILE names (from the user's directory), or the reference profile. */
export function profilePathFrom(env: Env = process.env, cwd = userDirectory(env)): string {
  return pathFrom(env, "H2H_PROFILE", REFERENCE_PROFILE_PATH, cwd);
}
// --- end of the user's directory ------------------------------------------------------------------

export function readSettings(env: Env = process.env, cwd = userDirectory(env)): Settings {
  const baseUrl = nonEmpty(env, "H2H_BASE_URL");
  if (baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new SettingsError(`H2H_BASE_URL "${baseUrl}" is not a URL (expected e.g. http://127.0.0.1:8080)`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new SettingsError(`H2H_BASE_URL "${baseUrl}" must start with http:// or https://`);
    }
  }
  const profilePath = profilePathFrom(env, cwd);
  const sinkPortText = nonEmpty(env, "H2H_SINK_PORT");
  const sinkPort = sinkPortText === undefined ? 0 : wholeNumberOf(sinkPortText);
  if (!Number.isInteger(sinkPort) || sinkPort < 0 || sinkPort > 65_535) {
    throw new SettingsError(`H2H_SINK_PORT "${sinkPortText}" is not a port number (0-65535)`);
  }
  const sinkPublicUrl = nonEmpty(env, "H2H_SINK_PUBLIC_URL");
  if (sinkPublicUrl !== undefined && !/^https?:\/\/[^/]+/.test(sinkPublicUrl)) {
    throw new SettingsError(`H2H_SINK_PUBLIC_URL "${sinkPublicUrl}" is not an http(s) URL`);
  }
  const caFile = optionalPathFrom(env, "H2H_CA_FILE", cwd);
  const certFile = optionalPathFrom(env, "H2H_CLIENT_CERT", cwd);
  const keyFile = optionalPathFrom(env, "H2H_CLIENT_KEY", cwd);
  // A passphrase is a secret: taken as it is (not trimmed), but never empty.
  const passphrase = env.H2H_CLIENT_KEY_PASSPHRASE;
  if (passphrase !== undefined && passphrase.trim() === "")
    throw blankVariableError("H2H_CLIENT_KEY_PASSPHRASE");
  if (passphrase !== undefined && keyFile === undefined)
    throw new SettingsError(
      "H2H_CLIENT_KEY_PASSPHRASE is set without H2H_CLIENT_KEY: set the client key (and H2H_CLIENT_CERT), or unset the passphrase",
    );
  const tls: TlsFiles = {
    ...(caFile !== undefined ? { caFiles: [caFile] } : {}),
    ...(certFile !== undefined ? { certFile } : {}),
    ...(keyFile !== undefined ? { keyFile } : {}),
    ...(passphrase !== undefined ? { passphrase } : {}),
  };
  return {
    baseUrl,
    targetImage: nonEmpty(env, "H2H_TARGET_IMAGE"),
    apiKey: nonEmpty(env, "H2H_API_KEY"),
    secondApiKey: nonEmpty(env, "H2H_API_KEY_2"),
    callbackSecret: nonEmpty(env, "H2H_CALLBACK_SECRET"),
    profilePath,
    reportDir: pathFrom(env, "H2H_REPORT_DIR", resolve(cwd, "reports"), cwd),
    sinkPort,
    sinkPublicUrl,
    tls,
  };
}

function optionalPathFrom(env: Env, name: string, cwd: string): string | undefined {
  const value = nonEmpty(env, name);
  if (value === undefined) return undefined;
  return isAbsolute(value) ? value : resolve(cwd, value);
}

/**
 * issue 12: reads and checks the TLS files before the first request. A bad, unreadable or
 * mismatched file is a SettingsError (exit 64) naming the variable, the path and the fix.
 * Undefined when no TLS variable is set.
 */
export function readTlsSettings(settings: Pick<Settings, "tls">): TlsMaterial | undefined {
  const { tls } = settings;
  if (tls.caFiles === undefined && tls.certFile === undefined && tls.keyFile === undefined) return undefined;
  try {
    return readTlsFiles(tls);
  } catch (error) {
    if (error instanceof TlsConfigError) throw new SettingsError(error.message);
    throw error;
  }
}

/**
 * Fills in the reference provider's sandbox keys where the target is the reference provider:
 * started by the run, or named so by its profile (`"name": "reference"`). A foreign target
 * (an image too) gets no default key: its own must be given, and so must its callback secret when
 * its profile says callbacks are signed (`signatureScheme` other than "none"): without it every
 * signature check would fail and blame the target for a secret the run was not given.
 */
export function withReferenceDefaults(
  settings: Settings,
  profileName: string,
  signatureScheme = "none",
): Settings {
  const started = settings.baseUrl === undefined && settings.targetImage === undefined;
  const isReference = started || profileName === "reference";
  if (!isReference) {
    const target = settings.baseUrl ?? `image ${settings.targetImage}`;
    if (settings.apiKey === undefined) {
      throw new SettingsError(
        `H2H_API_KEY is not set: the target ${target} (profile "${profileName}") needs its merchant API key`,
      );
    }
    if (settings.callbackSecret === undefined && signatureScheme !== "none") {
      throw new SettingsError(
        `H2H_CALLBACK_SECRET is not set: the profile "${profileName}" says the callbacks of ${target} are signed ` +
          `(${signatureScheme}), and they cannot be checked without the secret. Set it, or set ` +
          `callbacks.signature.scheme to "none" in the profile if the target does not sign its callbacks`,
      );
    }
    return settings;
  }
  return {
    ...settings,
    apiKey: settings.apiKey ?? REFERENCE_API_KEYS.merchant1,
    secondApiKey: settings.secondApiKey ?? REFERENCE_API_KEYS.merchant2,
    callbackSecret: settings.callbackSecret ?? REFERENCE_CALLBACK_SECRET,
  };
}
