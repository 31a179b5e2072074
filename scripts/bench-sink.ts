import { runCli } from "./cli.ts";
import { benchSink } from "./commands/bench-sink.ts";

await runCli(benchSink);
