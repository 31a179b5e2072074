import { runCli } from "./cli.ts";
import { loadBuild } from "./commands/load-build.ts";

await runCli(loadBuild);
