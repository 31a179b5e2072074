import { runCli } from "./cli.ts";
import { sink } from "./commands/sink.ts";

await runCli(sink);
