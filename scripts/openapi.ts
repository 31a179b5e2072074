import { runCli } from "./cli.ts";
import { openapi } from "./commands/openapi.ts";

await runCli(openapi);
