/**
 * k6 load script: quasi-ecom create → confirm flows (bundled by `npm run load:build`).
 * Run: k6 run -e H2H_BASE_URL=... -e H2H_API_KEY=... -e H2H_RUN_ID=... [-e H2H_SCENARIO=load] load/dist/quasi-ecom.js
 */
import exec from "k6/execution";
import { type BundledProfile, parseLoadConfig } from "../lib/config.ts";
import type { ContractDigest } from "../lib/contract-digest.ts";
import { runOrderFlow } from "../lib/flow.ts";
import { k6Runtime } from "../lib/k6-runtime.ts";
import { buildOptions } from "../lib/scenarios.ts";
import { type K6Summary, summaryOutputs } from "../lib/summary.ts";

/** Fixed at bundle time from the target profile and the zod contract (load/harness/build.ts). */
declare const __H2H_PROFILE__: BundledProfile;
declare const __H2H_DIGEST__: ContractDigest;

const config = parseLoadConfig(__ENV, __H2H_PROFILE__);

export const options = buildOptions(config, ["quasi_ecom"]);

export default function (): void {
  runOrderFlow("quasi_ecom", config, __H2H_DIGEST__, k6Runtime, {
    vu: exec.vu.idInTest,
    iteration: exec.scenario.iterationInTest,
  });
}

export function handleSummary(data: K6Summary): Record<string, string> {
  return summaryOutputs(data, __ENV.H2H_SUMMARY_PATH);
}
