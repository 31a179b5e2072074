import { runCli } from "./cli.ts";
import { benchLoadOverhead } from "./commands/bench-load-overhead.ts";

await runCli(benchLoadOverhead);
