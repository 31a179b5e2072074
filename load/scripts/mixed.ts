/**
 * k6 load script: a mix of mobile-commerce and quasi-ecom create → confirm flows; the share of
 * mobile commerce is H2H_MOBILE_SHARE (default 0.5). Bundled by `npm run load:build`.
 * Run: k6 run -e H2H_BASE_URL=... -e H2H_API_KEY=... -e H2H_RUN_ID=... [-e H2H_SCENARIO=load] load/dist/mixed.js
 */
import { type BundledProfile, parseLoadConfig } from "../lib/config.ts";
import { createOrderFlow } from "../lib/flow.ts";
import { k6Runtime, stepTagger } from "../lib/k6-runtime.ts";
import { buildOptions } from "../lib/scenarios.ts";
import { type K6Summary, summaryOutputs } from "../lib/summary.ts";

/** Fixed at bundle time from the target profile and the zod contract (load/harness/build.ts). */
declare const __H2H_PROFILE__: BundledProfile;
declare const __H2H_DIGEST_JSON__: string;

const config = parseLoadConfig(__ENV, __H2H_PROFILE__);
const flow = createOrderFlow(config, __H2H_DIGEST_JSON__, k6Runtime);
const tagStep = stepTagger(config);

// k6 reads the options of its first init (__VU 0) only; a VU does not keep a copy it never reads.
export const options =
  __VU === 0 ? buildOptions(config, ["mobile_commerce", "quasi_ecom"], (path) => open(path)) : {};

export default function (): void {
  tagStep();
  const kind = Math.random() < config.mobileShare ? "mobile_commerce" : "quasi_ecom";
  flow(kind);
}

export function handleSummary(data: K6Summary): Record<string, string> {
  return summaryOutputs(data, __ENV.H2H_SUMMARY_PATH, config);
}
