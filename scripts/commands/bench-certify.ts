/**
 * `npm run bench:certify`: the default certification's wall time, CPU and phases, median of runs,
 * from the checkout's entry (npm and tsx) and from the compiled package's (dist/), in turns.
 */
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../run-setup/index.ts";
import {
  type CertifyRunTiming,
  CHECKOUT_COMMAND,
  COMPILED_COMMAND,
  compareCertifyEntries,
} from "../bench/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

/** The checkout's entry: TypeScript through tsx, under npm. */
const CHECKOUT_TARGET_MS = 6_000;
/** The installed package's compiled entry: wall time and CPU (user + system), each. */
const COMPILED_TARGET_MS = 4_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`.padStart(8);

export const benchCertify = defineCommand({
  name: "bench:certify",
  summary:
    "Runs the default certification (the bundled reference provider) several times from the checkout\n" +
    "(`npm run certify`) and from the compiled package (dist/, `npm run build` first), in turns, and prints\n" +
    "the wall time, launch to exit, the CPU (user + system) and each phase: start-up (launch, loading,\n" +
    "setup until the first spec file), specs, callbacks and reports; the medians, their ratio and the\n" +
    `targets (checkout ${CHECKOUT_TARGET_MS / 1000} s; compiled ${COMPILED_TARGET_MS / 1000} s wall and CPU).`,
  options: {
    runs: { type: "number", description: "certifications to time per entry (default: 3)" },
    "checkout-only": { type: "boolean", description: "time the checkout's entry alone (no dist/ needed)" },
  },
  exitCodes: {
    [EXIT.ok]: "the median wall times (and the compiled entry's CPU) met their targets, every run conformant",
    [EXIT.failed]: "a target was not met, or a run was not conformant",
    [EXIT.usage]: "bad usage, or no dist/ to time: run npm run build first (or give --checkout-only)",
  },
  async run(options) {
    const runs = Math.max(1, options.runs ?? 3);
    const compiled = !options["checkout-only"];
    if (compiled && !existsSync(join(PROJECT_ROOT, COMPILED_COMMAND[1]))) {
      console.error(`error: no ${COMPILED_COMMAND[1]}: run npm run build first, or give --checkout-only`);
      return EXIT.usage;
    }
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(", ");
    const entries = compiled ? [CHECKOUT_COMMAND, COMPILED_COMMAND] : [CHECKOUT_COMMAND];
    const names = ["checkout", "compiled"];
    console.log(
      `bench:certify: ${entries.map((e) => e.join(" ")).join(" and ")}, ${runs} runs each in turns (load average ${load()})`,
    );
    const row = (name: string, t: Omit<CertifyRunTiming, "exitCode" | "verdict">) =>
      `${name.padEnd(19)} wall ${seconds(t.wallMs)} | cpu ${seconds(t.cpuMs)} | start-up ${seconds(t.startupMs)} (launch ${seconds(t.launchMs)}, load ${seconds(t.importMs)}, setup ${seconds(t.setupMs)}) | specs ${seconds(t.specsMs)} | callbacks ${seconds(t.callbacksMs)} | reports ${seconds(t.reportsMs)}`;
    const results = await compareCertifyEntries({ runs, entries }, (timing, i, entry) =>
      console.log(`${row(`${names[entry]} run ${i + 1}`, timing)} | ${timing.verdict}`),
    );
    for (const [entry, result] of results.entries())
      console.log(row(`${names[entry]} median`, result.median));
    const [checkout, built] = results;
    const verdicts: boolean[] = [];
    if (checkout) {
      const met = checkout.median.wallMs <= CHECKOUT_TARGET_MS;
      verdicts.push(met);
      console.log(
        `checkout: median wall ${seconds(checkout.median.wallMs).trim()} (target ≤ ${CHECKOUT_TARGET_MS / 1000} s: ${met ? "met" : "NOT met"}), cpu ${seconds(checkout.median.cpuMs).trim()}`,
      );
    }
    if (built && checkout) {
      const wallMet = built.median.wallMs <= COMPILED_TARGET_MS;
      const cpuMet = built.median.cpuMs <= COMPILED_TARGET_MS;
      verdicts.push(wallMet, cpuMet);
      console.log(
        `compiled: median wall ${seconds(built.median.wallMs).trim()} (target ≤ ${COMPILED_TARGET_MS / 1000} s: ${wallMet ? "met" : "NOT met"}), ` +
          `cpu ${seconds(built.median.cpuMs).trim()} (target ≤ ${COMPILED_TARGET_MS / 1000} s: ${cpuMet ? "met" : "NOT met"}); ` +
          `compiled/checkout: wall ×${(built.median.wallMs / checkout.median.wallMs).toFixed(2)}, cpu ×${(built.median.cpuMs / checkout.median.cpuMs).toFixed(2)}`,
      );
    }
    console.log(`load average now ${load()} (${runs} run(s) per entry)`);
    const conformant = results.every((r) =>
      r.runs.every((t) => t.verdict === "conformant" && t.exitCode === 0),
    );
    if (!conformant) console.log("a run was not conformant: see its verdict above");
    return verdicts.every(Boolean) && conformant ? EXIT.ok : EXIT.failed;
  },
});
