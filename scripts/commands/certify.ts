/** `npm run certify`: certifies the target against the contract and writes the reports. */
import { checkProfile, runCertification, type Verdict } from "../../certify/index.ts";
import { defineCommand, EXIT, type ExitCode } from "../cli.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

const EXIT_OF_VERDICT: Record<Verdict, ExitCode> = {
  conformant: EXIT.ok,
  "not conformant": EXIT.failed,
  "not run": EXIT.notJudged,
};

export const certify = defineCommand({
  name: "certify",
  summary:
    "Certifies the target at H2H_BASE_URL (or the bundled reference provider) against the contract and\n" +
    "writes the JUnit, JSON, HTML and HAR reports.",
  options: {
    "check-profile": {
      type: "boolean",
      description:
        "validate the profile (H2H_PROFILE), print it with every default filled in, and exit; sends nothing",
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
  ],
  exitCodes: {
    [EXIT.ok]: "conformant: every required check passed",
    [EXIT.failed]: "not conformant",
    [EXIT.notJudged]: "the target could not be judged (unreachable, a spec that did not load)",
    ...BAD_SETTINGS_EXIT,
  },
  knownErrors: BAD_SETTINGS,
  async run(options) {
    if (options["check-profile"]) {
      await checkProfile();
      return EXIT.ok;
    }
    const probes = { seed: options.seed, depth: options.depth, only: options.only };
    return EXIT_OF_VERDICT[(await runCertification({ probes })).report.verdict];
  },
});
