/** `npm run certify:receiver`: certifies a merchant's webhook receiver against the provider's callbacks. */

import { join } from "node:path";
import { EXIT_OF_VERDICT, printListedChecks, runReceiverCertification } from "../../certify/index.ts";
import { MAX_DEADLINE_MS } from "../../contract/index.ts";
import { commandSettings, defineCommand, EXIT, settingFlags, settingOptions, UsageError } from "../cli.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

/** The receiver's reports without H2H_REPORT_DIR: `reports/receiver/`. */
export const RECEIVER_REPORT_SUBDIR = "receiver";

export const certifyReceiver = defineCommand({
  name: "certify:receiver",
  aliases: ["receiver"],
  summary:
    "Certifies a merchant's webhook receiver (H2H_RECEIVER_URL, or the bundled reference receiver) by\n" +
    "playing the provider's callbacks towards it as the profile describes them: valid, repeated, out of\n" +
    "order, forged, malformed, and a burst; writes the same JUnit, JSON, HTML and HAR reports as certify.",
  options: {
    ...settingOptions("receiver"),
    "list-checks": {
      type: "boolean",
      description: "print every receiver check with its basis and whether it can fail the run; sends nothing",
    },
    format: {
      type: "string",
      choices: ["text", "json", "markdown"],
      description: "how --list-checks prints: text (default), json, or markdown",
    },
    only: {
      type: "string",
      multiple: true,
      value: "CHECK",
      description: "run only this receiver check (repeatable); the verdict is then PARTIAL at best (exit 4)",
    },
    deadline: {
      type: "number",
      value: "SECONDS",
      description: "stop the run after this long and write partial reports (default: the profile's)",
    },
  },
  settings: "receiver",
  exitCodes: {
    [EXIT.ok]: "conformant: every required receiver check passed",
    [EXIT.failed]: "not conformant (a forged callback acknowledged is said first)",
    [EXIT.notJudged]:
      "the receiver could not be judged (unreachable, a spec that did not load), or the run was incomplete",
    [EXIT.partial]: "partial: no required check failed, but the run judged only part (--only)",
    ...BAD_SETTINGS_EXIT,
  },
  knownErrors: [...BAD_SETTINGS, [Error, EXIT.notJudged]],
  async run(options) {
    const given = commandSettings("receiver", settingFlags("receiver", options));
    // By default in a folder of its own: the provider's certification writes the same file names.
    const settings =
      given.sources.reportDir === "default"
        ? { ...given, reportDir: join(given.reportDir, RECEIVER_REPORT_SUBDIR) }
        : given;
    if (options["list-checks"]) {
      await printListedChecks({
        settings,
        subject: "receiver",
        format: options.format as "text" | "json" | "markdown" | undefined,
      });
      return EXIT.ok;
    }
    if (options.format !== undefined) throw new UsageError("--format: only with --list-checks");
    const { deadline } = options;
    if (deadline !== undefined && !(deadline > 0 && deadline * 1000 <= MAX_DEADLINE_MS))
      throw new UsageError(
        `--deadline ${deadline}: a positive number of seconds, at most ${MAX_DEADLINE_MS / 1000}`,
      );
    const { report, reportsError } = await runReceiverCertification({
      settings,
      only: options.only ?? [],
      ...(deadline === undefined ? {} : { deadlineMs: Math.round(deadline * 1000) }),
    });
    // A verdict whose reports are missing is no pass: CI reads them.
    return reportsError !== undefined ? EXIT.notJudged : EXIT_OF_VERDICT[report.verdict];
  },
});
