/** `npm run certify`: certifies the target against the contract and writes the reports. */
import { checkProfile, printListedChecks, runCertification, type Verdict } from "../../certify/index.ts";
import { defineCommand, EXIT, type ExitCode, UsageError } from "../cli.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

const EXIT_OF_VERDICT: Record<Verdict, ExitCode> = {
  conformant: EXIT.ok,
  "not conformant": EXIT.failed,
  "not run": EXIT.notJudged,
  incomplete: EXIT.notJudged, // issue 12: deadline, SIGINT or SIGTERM
};

export const certify = defineCommand({
  name: "certify",
  summary:
    "Certifies the target at H2H_BASE_URL, a container of the image H2H_TARGET_IMAGE, or the bundled\n" +
    "reference provider against the contract and writes the JUnit, JSON, HTML and HAR reports.",
  options: {
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
    seed: {
      type: "number",
      value: "N",
      description: "seed of the generated inputs (default: H2H_SEED, else drawn and printed)",
    },
    depth: {
      type: "string",
      choices: ["quick", "thorough"],
      description: "how many generated orders and probes: quick (default) or thorough (nightly)",
    },
    only: {
      type: "string",
      multiple: true,
      value: "CHECK",
      description: "run only this check (repeatable), e.g. --seed N --only semantics.amount-echoed",
    },
    // issue 12: the whole run's deadline; then the reports of what ran, verdict "incomplete", exit 2.
    deadline: {
      type: "number",
      value: "SECONDS",
      description:
        "stop the run after this long and write partial reports (default: the profile's limits.deadlineMs, or derived from its timeouts)",
    },
  },
  environment: [
    "H2H_BASE_URL         target base URL (default: start the bundled reference provider)",
    "H2H_API_KEY          merchant API key (required for a foreign target)",
    "H2H_API_KEY_2        a second merchant's key, for the cross-merchant checks",
    "H2H_CALLBACK_SECRET  secret to verify callback signatures",
    "H2H_PROFILE          target profile file (default: fixtures/profiles/reference.json)",
    "H2H_SINK_PORT, H2H_SINK_PUBLIC_URL  where the webhook sink listens / the URL in metadata.webHook",
    "H2H_REPORT_DIR       where reports go (default: reports/)",
    "H2H_SEED             seed of the generated inputs (--seed wins)",
    "H2H_DEPTH            quick (default) or thorough (--depth wins)",
    "H2H_WORKERS          worker threads the spec files run in (default: one per core, at least 2)",
    "H2H_TARGET_IMAGE     a provider image to start (listening on $PORT, host network) and certify",
    "H2H_TARGET_ENV       its extra environment, NAME=value,NAME2=value2",
    "H2H_TARGET_READY     when it is ready: an HTTP path answering below 500, or log:TEXT (default: any answer on /)",
    "H2H_TARGET_STARTUP_S how long to wait for it to be ready (default: 60)",
    "H2H_BASELINE_REPORT  a previous run's h2h-certify.json: show what changed since",
    "H2H_CA_FILE          extra trusted CA certificates (PEM; may hold several) for an https target",
    "H2H_CLIENT_CERT, H2H_CLIENT_KEY  client certificate and key (PEM) for mTLS: both or neither",
    "H2H_CLIENT_KEY_PASSPHRASE  the client key's passphrase, when it is encrypted",
  ],
  exitCodes: {
    [EXIT.ok]: "conformant: every required check passed",
    [EXIT.failed]: "not conformant",
    [EXIT.notJudged]:
      "the target could not be judged (unreachable, invalid API key: every answer 401, a spec that did not load, a crash), or the run was incomplete (--deadline, SIGINT, SIGTERM)",
    ...BAD_SETTINGS_EXIT,
  },
  // issue 12: anything else that escapes (a crash, a setup failure) means "not judged", never "not conformant".
  knownErrors: [...BAD_SETTINGS, [Error, EXIT.notJudged]],
  async run(options) {
    if (options["check-profile"]) {
      await checkProfile();
      return EXIT.ok;
    }
    if (options["list-checks"]) {
      await printListedChecks({ format: options.format as "text" | "json" | "markdown" | undefined });
      return EXIT.ok;
    }
    if (options.format !== undefined) throw new UsageError("--format: only with --list-checks");
    const { deadline } = options;
    if (deadline !== undefined && !(deadline > 0))
      throw new UsageError(`--deadline ${deadline}: must be a positive number of seconds`);
    const probes = { seed: options.seed, depth: options.depth, only: options.only };
    const limits = deadline === undefined ? {} : { deadlineMs: Math.round(deadline * 1000) };
    return EXIT_OF_VERDICT[(await runCertification({ probes, ...limits })).report.verdict];
  },
});
