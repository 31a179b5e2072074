/**
 * The installed package's programmatic entry (`import { certify } from "h2h-certify"`): one
 * certification run, as `npx h2h-certify certify` makes it, with its result handed back instead
 * of an exit code.
 */
import { parseSettings, SETTINGS, type SettingKey, SettingsError } from "../run-setup/index.ts";
import { type CertifyResult, runCertification } from "./engine/runner.ts";

export { SettingsError } from "../run-setup/index.ts";
export type { CheckRecord, RunReport, Verdict } from "./engine/run-model.ts";
export type { CertifyResult } from "./engine/runner.ts";

/**
 * A run's settings, by the settings table's keys (docs/environment.md: `baseUrl` is H2H_BASE_URL,
 * `profile` H2H_PROFILE, …), each as the text its variable takes (or a number). A key given here
 * wins over its variable; relative paths are read from the current directory.
 */
export type CertifySettings = Partial<Record<SettingKey, string | number>>;

export interface CertifyCallOptions {
  /** The H2H_* variables read for the settings not given (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Where progress and the summary go, a line at a time (default: nowhere). */
  print?: (line: string) => void;
  /** The whole run's deadline in milliseconds (`--deadline`); default: the profile's. */
  deadlineMs?: number;
}

/**
 * Certifies the target the settings name (the bundled reference provider when none is), writes
 * the reports and returns the run: `result.report.verdict` is the verdict, `result.paths` where the
 * reports are. A bad setting is a SettingsError naming its variable and the fix.
 */
export async function certify(
  settings: CertifySettings = {},
  options: CertifyCallOptions = {},
): Promise<CertifyResult> {
  const env = { ...(options.env ?? process.env) };
  for (const [key, value] of Object.entries(settings)) {
    if (!Object.hasOwn(SETTINGS, key))
      throw new SettingsError(
        `certify(): unknown setting "${key}": the settings are the table's keys (${Object.keys(SETTINGS).join(", ")})`,
      );
    if (value !== undefined) env[SETTINGS[key as SettingKey].variable] = String(value);
  }
  const parsed = parseSettings(env, { command: "certify", cwd: process.cwd() });
  return runCertification({
    settings: parsed,
    print: options.print ?? (() => {}),
    ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
  });
}
