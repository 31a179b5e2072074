/**
 * `npm run certify`: certifies the target at H2H_BASE_URL (or the bundled reference provider)
 * against the contract and writes the reports. Exit code: 0 conformant, 1 not conformant,
 * 2 the run could not judge the target (unreachable, broken setup), 64 bad usage.
 */
import { parseArgs } from "node:util";
import { runCertification } from "../certify/runner.ts";
import { SettingsError } from "../certify/settings.ts";
import { ProfileError } from "../contract/profile.ts";
import { runCli, UsageError } from "./cli.ts";

const USAGE = `usage: npm run certify
Configuration comes from the environment (see README.md):
  H2H_BASE_URL, H2H_API_KEY, H2H_API_KEY_2, H2H_CALLBACK_SECRET, H2H_PROFILE, H2H_REPORT_DIR,
  H2H_TARGET_IMAGE, H2H_TARGET_ENV, H2H_TARGET_READY, H2H_TARGET_STARTUP_S (a provider image to start and certify),
  H2H_BASELINE_REPORT (a previous run's h2h-certify.json: show what changed since)`;

await runCli(async () => {
  const { values } = parseArgs({ options: { help: { type: "boolean" } }, strict: true });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    return (await runCertification()).exitCode;
  } catch (error) {
    if (error instanceof ProfileError || error instanceof SettingsError) throw new UsageError(error.message);
    throw error;
  }
});
