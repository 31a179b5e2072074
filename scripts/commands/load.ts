/** `npm run load`: a k6 load scenario against the target, with thresholds, latency and callback delivery. */

import {
  LOAD_SCRIPTS,
  LoadConfigError,
  NoK6Error,
  runLoad,
  runSinkDelivery,
  SCENARIOS,
} from "../../load/index.ts";
import { SETTINGS, type SettingSpec } from "../../run-setup/index.ts";
import { commandSettings, defineCommand, EXIT, settingOption, UsageError } from "../cli.ts";
import { BAD_SETTINGS, BAD_SETTINGS_EXIT } from "./bad-settings.ts";

export const load = defineCommand({
  name: "load",
  summary:
    "Runs a k6 load scenario against H2H_BASE_URL, a container of H2H_TARGET_IMAGE, or the bundled\n" +
    "reference provider and reports thresholds, the failing checks, latency, callback delivery per final\n" +
    "status and plots over time; stress prints the capacity. k6 comes from PATH or K6_BIN, else the\n" +
    "image H2H_K6_IMAGE when a Docker engine answers.",
  options: {
    "base-url": settingOption("baseUrl", "URL"),
    scenario: { type: "string", choices: SCENARIOS, description: "the load shape (default: smoke)" },
    script: { type: "string", choices: LOAD_SCRIPTS, description: "which flows (default: mixed)" },
    rate: {
      type: "number",
      description:
        "orders per second: the plateau, or stress's first step (default: smoke 1.5, at most 2; else 10)",
    },
    duration: {
      type: "string",
      value: "DURATION",
      description: "k6 duration, e.g. 30s (default: the scenario's)",
    },
    think: {
      type: "number",
      value: "SECONDS",
      description: "wait between an order and its confirmation code (default: smoke 1, else 0)",
    },
    vus: {
      type: "number",
      description: "virtual users allocated at the start (default: enough for the rate)",
    },
    "max-vus": { type: "number", description: "most virtual users (default: 100)" },
    "mobile-share": {
      type: "number",
      value: "0..1",
      description: "share of mobile-commerce orders (default: 0.5)",
    },
    "failure-share": {
      type: "number",
      value: "0..1",
      description: "share of orders confirmed to fail (default: 0)",
    },
    "appeal-share": {
      type: "number",
      value: "0..1",
      description: "share of orders failed then won on appeal (default: 0)",
    },
    p95: { type: "number", value: "MS", description: "p95 latency threshold per endpoint (default: 500)" },
    "run-id": settingOption("runId", "ID"),
    "delivery-from-sink": settingOption("deliveryFromSink", "URL"),
    "field-check-every": {
      type: "number",
      value: "N",
      description:
        "check every field of every N-th answer and a VU's first 3; 1: of every answer (default: 10)",
    },
  },
  settings: "load",
  environment: ["K6_BIN  the k6 binary (default: k6 on PATH, else Docker)"],
  exitCodes: {
    [EXIT.ok]: "every threshold and the delivery target met (stress: its first step held)",
    [EXIT.failed]: "a threshold or the delivery target missed (--delivery-from-sink: the delivery target)",
    [EXIT.missingTool]: "no k6 to run with (nothing written)",
    ...BAD_SETTINGS_EXIT,
  },
  knownErrors: [[NoK6Error, EXIT.missingTool], ...BAD_SETTINGS],
  async run(options) {
    try {
      const settings = commandSettings("load", {
        baseUrl: options["base-url"],
        scenario: options.scenario,
        rate: options.rate,
        duration: options.duration,
        thinkSeconds: options.think,
        vus: options.vus,
        maxVus: options["max-vus"],
        mobileShare: options["mobile-share"],
        failureShare: options["failure-share"],
        appealShare: options["appeal-share"],
        p95Ms: options.p95,
        fieldCheckEvery: options["field-check-every"],
        runId: options["run-id"],
        deliveryFromSink: options["delivery-from-sink"],
      });
      // A distributed run's delivery, from the one sink its k6 processes called back to: no k6 here.
      if (settings.deliveryFromSink !== undefined)
        return (await runSinkDelivery(settings)).passed ? EXIT.ok : EXIT.failed;
      const { report } = await runLoad({ settings, script: options.script ?? "mixed" });
      return report.passed ? EXIT.ok : EXIT.failed;
    } catch (error) {
      // The script's own refusal (of settings taken together) names its variables; the user typed flags.
      if (error instanceof LoadConfigError) throw new UsageError(flagNames(error.message));
      throw error;
    }
  },
});

/** The flag each script variable comes from (the table's), so a refusal names what the user typed. */
const FLAGS: Record<string, string> = Object.fromEntries(
  Object.values(SETTINGS as Record<string, SettingSpec>).flatMap((spec) =>
    spec.parsedBy === "k6 scripts" && spec.flag ? [[spec.variable, `--${spec.flag}`]] : [],
  ),
);

function flagNames(message: string): string {
  return message.replace(/\b(H2H_[A-Z0-9_]+)(=?)/g, (match, name: string, equals: string) =>
    FLAGS[name] ? `${FLAGS[name]}${equals ? " " : ""}` : match,
  );
}
