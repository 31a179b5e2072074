/** `npm run bench:certify`: the default certification's wall time and phases, median of runs. */
import { loadavg } from "node:os";
import { type CertifyRunTiming, runCertifyBench } from "../bench/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

const TARGET_MS = 6_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`.padStart(8);

export const benchCertify = defineCommand({
  name: "bench:certify",
  summary:
    "Runs the default certification (`npm run certify`, the bundled reference provider) several times\n" +
    "and prints its wall time, launch to exit, and each phase: start-up (launch, loading, setup until\n" +
    "the first spec file), specs, callbacks (the callback spec, beside the others) and reports (the\n" +
    `specs' end to the exit); the median of the runs, next to the target (${TARGET_MS / 1000} s).`,
  options: {
    runs: { type: "number", description: "certifications to time (default: 3)" },
  },
  exitCodes: {
    [EXIT.ok]: "the median wall time met the target, and every run was conformant",
    [EXIT.failed]: "the target was not met, or a run was not conformant",
  },
  async run(options) {
    const runs = Math.max(1, options.runs ?? 3);
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(", ");
    console.log(`bench:certify: npm run certify, ${runs} runs one after another (load average ${load()})`);
    const row = (name: string, t: Omit<CertifyRunTiming, "exitCode" | "verdict">) =>
      `${name.padEnd(10)} wall ${seconds(t.wallMs)} | start-up ${seconds(t.startupMs)} (launch ${seconds(t.launchMs)}, load ${seconds(t.importMs)}, setup ${seconds(t.setupMs)}) | specs ${seconds(t.specsMs)} | callbacks ${seconds(t.callbacksMs)} | reports ${seconds(t.reportsMs)}`;
    const result = await runCertifyBench({ runs }, (timing, i) =>
      console.log(`${row(`run ${i + 1}`, timing)} | ${timing.verdict}`),
    );
    console.log(row("median", result.median));
    const conformant = result.runs.every((r) => r.verdict === "conformant" && r.exitCode === 0);
    const met = result.median.wallMs <= TARGET_MS;
    console.log(
      `median wall time ${seconds(result.median.wallMs).trim()} (target ≤ ${TARGET_MS / 1000} s: ${met ? "met" : "NOT met"}); load average now ${load()}`,
    );
    if (!conformant) console.log("a run was not conformant: see its verdict above");
    return met && conformant ? EXIT.ok : EXIT.failed;
  },
});
