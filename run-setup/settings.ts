/**
 * The target's view of a run's settings (parsed once by settings-table.ts): where the target is,
 * its keys, the profile, the reports, the sink and the TLS files.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  COMPILED,
  readTlsFiles,
  TlsConfigError,
  type TlsFiles,
  type TlsMaterial,
} from "../contract/kit/index.ts";
import { REFERENCE_API_KEYS, REFERENCE_CALLBACK_SECRET } from "../fixtures/providers/reference/index.ts";
import { type RunSettings, SettingsError } from "./settings-table.ts";

export { blankVariableError, SettingsError, userDirectory, wholeNumberOf } from "./settings-table.ts";

/** Where the compiled code is (dist/ in the installed package) or the TypeScript (a checkout). */
export const CODE_ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The package's root (package.json, docs/): a checkout, or the folder dist/ is in. */
export const PROJECT_ROOT = COMPILED ? `${dirname(CODE_ROOT)}/` : CODE_ROOT;

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
  /** TLS files (H2H_CA_FILE, H2H_CLIENT_CERT, H2H_CLIENT_KEY, H2H_CLIENT_KEY_PASSPHRASE); read by readTlsSettings. */
  tls: TlsFiles;
}

/** The target's settings out of a run's parsed settings; reads no environment. */
export function targetSettingsOf(run: RunSettings): Settings {
  const tls: TlsFiles = {
    ...(run.caFile !== undefined ? { caFiles: [run.caFile] } : {}),
    ...(run.clientCert !== undefined ? { certFile: run.clientCert } : {}),
    ...(run.clientKey !== undefined ? { keyFile: run.clientKey } : {}),
    ...(run.clientKeyPassphrase !== undefined ? { passphrase: run.clientKeyPassphrase } : {}),
  };
  return {
    baseUrl: run.baseUrl,
    targetImage: run.targetImage,
    apiKey: run.apiKey,
    secondApiKey: run.secondApiKey,
    callbackSecret: run.callbackSecret,
    profilePath: run.profile,
    reportDir: run.reportDir,
    sinkPort: run.sinkPort,
    sinkPublicUrl: run.sinkPublicUrl,
    tls,
  };
}

/**
 * Reads and checks the TLS files before the first request. A bad, unreadable or
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
