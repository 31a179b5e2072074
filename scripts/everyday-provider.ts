import { runCli } from "./cli.ts";
import { everydayProvider } from "./commands/everyday-provider.ts";

await runCli(everydayProvider);
