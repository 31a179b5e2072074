/**
 * `npm run load -- --scenario smoke`: runs a k6 load scenario against H2H_BASE_URL (or the bundled
 * reference provider) and reports thresholds, latency and callback delivery. Exit code: 0 passed,
 * 1 a threshold or the delivery target failed, 3 no k6 to run with (nothing written), 64 bad usage.
 */
import { parseArgs } from "node:util";
import { LOAD_SCRIPTS, NoK6Error, parseScenario, runLoad } from "../load/harness/run.ts";
import { LoadConfigError } from "../load/lib/config.ts";
import { numberFlag, runCli, UsageError } from "./cli.ts";

const USAGE = `usage: npm run load -- [--scenario smoke|load|stress|spike|soak] [--script mixed|mobile-commerce|quasi-ecom]
       [--rate N] [--duration 30s] [--think S] [--vus N] [--max-vus N] [--mobile-share 0.5] [--failure-share 0]
       [--appeal-share 0] [--p95 500]
Target and keys come from the environment as for certify (H2H_BASE_URL, H2H_API_KEY, H2H_PROFILE, H2H_REPORT_DIR).
k6 comes from PATH or K6_BIN, else the grafana/k6 image when a Docker engine answers.`;

/** The flag each script variable comes from, so a refusal names what the user typed. */
const FLAGS: Record<string, string> = {
  H2H_RATE: "--rate",
  H2H_DURATION: "--duration",
  H2H_MAX_VUS: "--max-vus",
  H2H_VUS: "--vus",
  H2H_THINK_S: "--think",
  H2H_MOBILE_SHARE: "--mobile-share",
  H2H_FAILURE_SHARE: "--failure-share",
  H2H_APPEAL_SHARE: "--appeal-share",
  H2H_P95_MS: "--p95",
};

function flagNames(message: string): string {
  return message.replace(/\b(H2H_[A-Z0-9_]+)(=?)/g, (match, name: string, equals: string) =>
    FLAGS[name] ? `${FLAGS[name]}${equals ? " " : ""}` : match,
  );
}

await runCli(async () => {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        scenario: { type: "string" },
        script: { type: "string" },
        rate: { type: "string" },
        duration: { type: "string" },
        "max-vus": { type: "string" },
        vus: { type: "string" },
        think: { type: "string" },
        "mobile-share": { type: "string" },
        "failure-share": { type: "string" },
        "appeal-share": { type: "string" },
        p95: { type: "string" },
      },
      strict: true,
    }) as { values: Record<string, string | undefined> });
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const script = (values.script ?? "mixed") as (typeof LOAD_SCRIPTS)[number];
  if (!LOAD_SCRIPTS.includes(script))
    throw new UsageError(`--script ${values.script}: must be one of ${LOAD_SCRIPTS.join(", ")}`);
  let scenario: ReturnType<typeof parseScenario>;
  try {
    scenario = parseScenario(values.scenario);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const options = {
    scenario,
    script,
    rate: numberFlag("rate", values.rate),
    duration: values.duration,
    maxVUs: numberFlag("max-vus", values["max-vus"]),
    vus: numberFlag("vus", values.vus),
    thinkSeconds: numberFlag("think", values.think),
    mobileShare: numberFlag("mobile-share", values["mobile-share"]),
    failureShare: numberFlag("failure-share", values["failure-share"]),
    appealShare: numberFlag("appeal-share", values["appeal-share"]),
    p95Ms: numberFlag("p95", values.p95),
  };
  try {
    return (
      await runLoad(
        Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as typeof options,
      )
    ).exitCode;
  } catch (error) {
    if (error instanceof NoK6Error) {
      console.error(`error: ${error.message}`);
      return 3;
    }
    if (error instanceof LoadConfigError) throw new UsageError(flagNames(error.message));
    throw error;
  }
});
