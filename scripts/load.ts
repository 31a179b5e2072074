import { runCli } from "./cli.ts";
import { load } from "./commands/load.ts";

await runCli(load);
