import { runCli } from "./cli.ts";
import { benchObserve } from "./commands/bench-observe.ts";

await runCli(benchObserve);
