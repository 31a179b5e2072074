/**
 * k6 load script: a mix of mobile-commerce and quasi-ecom create → confirm flows; the share of
 * mobile commerce is H2H_MOBILE_SHARE (default 0.5). Bundled by `npm run load:build`.
 * Run: k6 run -e H2H_BASE_URL=... -e H2H_API_KEY=... -e H2H_RUN_ID=... [-e H2H_SCENARIO=load] load/dist/mixed.js
 */
import exec from "k6/execution";
import { type BundledProfile, parseLoadConfig } from "../lib/config.ts";
import type { ContractDigest } from "../lib/contract-digest.ts";
import { runOrderFlow } from "../lib/flow.ts";
import { k6Runtime } from "../lib/k6-runtime.ts";
import { buildOptions } from "../lib/scenarios.ts";
import { type K6Summary, summaryOutputs } from "../lib/summary.ts";

declare const __H2H_PROFILE__: BundledProfile;
declare const __H2H_DIGEST__: ContractDigest;

const config = parseLoadConfig(__ENV, __H2H_PROFILE__);

export const options = buildOptions(config, ["mobile_commerce", "quasi_ecom"]);

export default function (): void {
  const kind = Math.random() < config.mobileShare ? "mobile_commerce" : "quasi_ecom";
  runOrderFlow(kind, config, __H2H_DIGEST__, k6Runtime, {
    vu: exec.vu.idInTest,
    iteration: exec.scenario.iterationInTest,
  });
}

export function handleSummary(data: K6Summary): Record<string, string> {
  return summaryOutputs(data, __ENV.H2H_SUMMARY_PATH);
}
