import { runCli } from "./cli.ts";
import { compare } from "./commands/compare.ts";

await runCli(compare);
