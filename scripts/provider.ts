import { runCli } from "./cli.ts";
import { provider } from "./commands/provider.ts";

await runCli(provider);
