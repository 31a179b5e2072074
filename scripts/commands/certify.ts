/** `npm run certify`: certifies the target against the contract and writes the reports. */
import { checkProfile, EXIT_OF_VERDICT, printListedChecks, runCertification } from "../../certify/index.ts";
import { MAX_DEADLINE_MS } from "../../contract/index.ts";
import { commandSettings, defineCommand, EXIT, settingFlags, settingOptions, UsageError } from "../cli.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

export const certify = defineCommand({
  name: "certify",
  summary:
    "Certifies the target at H2H_BASE_URL, a container of the image H2H_TARGET_IMAGE, or the bundled\n" +
    "reference provider against the contract and writes the JUnit, JSON, HTML and HAR reports.",
  options: {
    // --base-url, --seed, --depth: the table's flags of certify (run-setup/settings-table.ts).
    ...settingOptions("certify"),
    "check-profile": {
      type: "boolean",
      description:
        "validate the profile (H2H_PROFILE), print it with every default filled in, and exit; sends nothing",
    },
    "list-checks": {
      type: "boolean",
      description:
        "print every check and request constraint a run with this profile would probe: its basis (stated, declared, necessary, advisory) and whether it can fail the run; sends nothing",
    },
    format: {
      type: "string",
      choices: ["text", "json", "markdown"],
      description: "how --list-checks prints: text (default), json, or markdown (the checks as a table)",
    },
    only: {
      type: "string",
      multiple: true,
      value: "CHECK",
      description:
        "run only this check (repeatable), e.g. --seed N --only semantics.amount-echoed; the verdict is then PARTIAL at best (exit 4)",
    },
    // The whole run's deadline; then the reports of what ran, verdict "incomplete", exit 2.
    deadline: {
      type: "number",
      value: "SECONDS",
      description:
        "stop the run after this long and write partial reports (default: the profile's limits.deadlineMs, or derived from its timeouts)",
    },
  },
  settings: "certify",
  exitCodes: {
    [EXIT.ok]: "conformant: every required check passed",
    [EXIT.failed]: "not conformant",
    [EXIT.notJudged]:
      "the target could not be judged (unreachable, invalid API key: every answer 401, rate limited, a spec that did not load, a crash), the run was incomplete (--deadline, SIGINT, SIGTERM), or its reports could not be written",
    [EXIT.partial]:
      "partial: no required check failed, but the run judged only part of the contract (--only, or required checks not evaluated)",
    ...BAD_SETTINGS_EXIT,
  },
  // Anything else that escapes (a crash, a setup failure) means "not judged", never "not conformant".
  knownErrors: [...BAD_SETTINGS, [Error, EXIT.notJudged]],
  async run(options) {
    const settings = commandSettings("certify", settingFlags("certify", options));
    if (options["check-profile"]) {
      await checkProfile({ settings });
      return EXIT.ok;
    }
    if (options["list-checks"]) {
      await printListedChecks({
        settings,
        format: options.format as "text" | "json" | "markdown" | undefined,
      });
      return EXIT.ok;
    }
    if (options.format !== undefined) throw new UsageError("--format: only with --list-checks");
    const { deadline } = options;
    if (deadline !== undefined && !(deadline > 0))
      throw new UsageError(`--deadline ${deadline}: must be a positive number of seconds`);
    // A timer longer than 2^31 - 1 ms fires at once in Node.js: the run would end as it starts.
    if (deadline !== undefined && deadline * 1000 > MAX_DEADLINE_MS)
      throw new UsageError(
        `--deadline ${deadline}: at most ${MAX_DEADLINE_MS / 1000} seconds (about 24 days)`,
      );
    const probes = { only: options.only };
    const limits = deadline === undefined ? {} : { deadlineMs: Math.round(deadline * 1000) };
    const result = await runCertification({ settings, probes, ...limits });
    // A verdict whose reports are missing is no pass: CI reads them.
    return result.reportsError !== undefined ? EXIT.notJudged : EXIT_OF_VERDICT[result.report.verdict];
  },
});
