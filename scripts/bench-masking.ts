import { runCli } from "./cli.ts";
import { benchMasking } from "./commands/bench-masking.ts";

await runCli(benchMasking);
