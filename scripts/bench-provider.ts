import { runCli } from "./cli.ts";
import { benchProvider } from "./commands/bench-provider.ts";

await runCli(benchProvider);
