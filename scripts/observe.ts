import { runCli } from "./cli.ts";
import { observe } from "./commands/observe.ts";

await runCli(observe);
