import { runCli } from "./cli.ts";
import { benchGenerate } from "./commands/bench-generate.ts";

await runCli(benchGenerate);
