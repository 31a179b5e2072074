/**
 * `npm run load -- --scenario smoke`: runs a k6 load scenario against H2H_BASE_URL (or the bundled
 * reference provider) and reports thresholds, latency and callback delivery. Exit code: 0 passed,
 * 1 a threshold or the delivery target failed, 3 no k6 to run with (nothing written), 64 bad usage.
 */
import { parseArgs } from "node:util";
import { LOAD_SCRIPTS, NoK6Error, parseScenario, runLoad } from "../load/harness/run.ts";
import { numberFlag, runCli, UsageError } from "./cli.ts";

const USAGE = `usage: npm run load -- [--scenario smoke|load|stress|spike|soak] [--script mixed|mobile-commerce|quasi-ecom]
       [--rate N] [--duration 30s] [--max-vus N] [--mobile-share 0.5] [--failure-share 0] [--appeal-share 0] [--p95 500]
Target and keys come from the environment as for certify (H2H_BASE_URL or H2H_TARGET_IMAGE, H2H_API_KEY, H2H_PROFILE,
H2H_REPORT_DIR). k6 comes from PATH or K6_BIN, else the image H2H_K6_IMAGE (default grafana/k6:1.3.0) when a Docker
engine answers.`;

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
    throw error;
  }
});
