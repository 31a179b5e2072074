/** `npm run observe`: a recording proxy between a merchant's integration and the provider; two verdicts. */

import { runObserve } from "../../certify/index.ts";
import { readProfile } from "../../contract/index.ts";
import { readTlsSettings, targetSettingsOf } from "../../run-setup/index.ts";
import { commandSettings, defineCommand, EXIT, settingOption } from "../cli.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

export const observe = defineCommand({
  name: "observe",
  summary:
    "Observes a merchant's own integration: a recording proxy on a loopback port (its URL is printed) that\n" +
    "the integration talks to instead of the provider. Requests and answers pass unchanged but for\n" +
    "metadata.webHook, which points at the sink; each callback is handed on to the merchant's webhook and\n" +
    "its answer returned to the provider. Once stopped (Ctrl-C, --duration, --until-idle) it judges both\n" +
    "sides, the provider and the merchant, and writes the reports to <H2H_REPORT_DIR>/observe/.\n" +
    "See docs/observe.md.",
  options: {
    upstream: settingOption("observeUpstream", "URL"),
    port: settingOption("observePort", "N"),
    duration: settingOption("observeDurationS", "SECONDS"),
    "until-idle": settingOption("observeUntilIdleS", "SECONDS"),
    "keep-webhook": {
      type: "boolean",
      description: "leave metadata.webHook alone: callbacks then go unobserved, and the report says so",
    },
  },
  settings: "observe",
  exitCodes: {
    [EXIT.ok]: "both verdicts conformant: no violation in what was observed",
    [EXIT.failed]: "the provider's or the merchant's verdict is not conformant",
    [EXIT.notJudged]: "nothing was observed (no request passed the proxy)",
    ...BAD_SETTINGS_EXIT,
  },
  knownErrors: BAD_SETTINGS,
  async run(options) {
    const run = commandSettings("observe", {
      observeUpstream: options.upstream,
      observePort: options.port,
      observeDurationS: options.duration,
      observeUntilIdleS: options["until-idle"],
    });
    const settings = targetSettingsOf(run);
    const profile = await readProfile(run.profile);
    const stop = new AbortController();
    const onSignal = (signal: NodeJS.Signals) => stop.abort(signal);
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      const result = await runObserve({
        profile,
        profilePath: run.profile,
        settings,
        upstream: run.observeUpstream,
        tls: readTlsSettings(settings),
        port: run.observePort,
        keepWebhook: options["keep-webhook"] ?? false,
        durationS: run.observeDurationS,
        untilIdleS: run.observeUntilIdleS,
        reportDir: run.reportDir,
        signal: stop.signal,
        print: (line) => console.log(line),
      });
      return result.exitCode;
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
});
