/** `npm run bench:masking`: how fast a run's masker goes over a report of large answers. */
import { runMaskingBench } from "../bench/index.ts";
import { defineCommand, EXIT } from "../cli.ts";

/**
 * The slower of the two texts, HTML (masked by pattern throughout), in MB per CPU second: the
 * wall time also counts what other processes take of the cores.
 */
const TARGET_HTML_MB_PER_S = 15;

export const benchMasking = defineCommand({
  name: "bench:masking",
  summary:
    "How fast a run's masker goes over a report of large answers (64 KB each, one holding a card),\n" +
    "as JSON and as HTML: median of repeated runs, MB per second of wall time and of CPU time " +
    `(target: HTML ≥ ${TARGET_HTML_MB_PER_S} MB per CPU second).`,
  options: {
    rounds: { type: "number", description: "repeated runs for the median (default: 7)" },
  },
  exitCodes: { [EXIT.ok]: "target met", [EXIT.failed]: "target not met, or the card was not masked" },
  async run(options) {
    const rounds = options.rounds ?? 7;
    const result = runMaskingBench(rounds);
    for (const [name, t] of [
      ["JSON report", result.json],
      ["HTML report", result.html],
    ] as const) {
      console.log(
        `${name.padEnd(12)} ${String(t.megabytes).padStart(5)} MB: median of ${rounds} ${String(t.medianMs).padStart(6)} ms, ${String(t.megabytesPerSecond).padStart(6)} MB/s; CPU ${String(t.medianCpuMs).padStart(6)} ms, ${String(t.cpuMegabytesPerSecond).padStart(6)} MB/s${t.changed ? "" : "  (the card was NOT masked)"}`,
      );
    }
    const met = result.html.cpuMegabytesPerSecond >= TARGET_HTML_MB_PER_S;
    console.log(
      `HTML: ${result.html.cpuMegabytesPerSecond} MB per CPU second (target ≥ ${TARGET_HTML_MB_PER_S}: ${met ? "met" : "NOT met"})`,
    );
    return met && result.json.changed && result.html.changed ? EXIT.ok : EXIT.failed;
  },
});
