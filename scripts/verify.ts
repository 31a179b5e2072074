import { runCli } from "./cli.ts";
import { verify } from "./commands/verify.ts";

await runCli(verify);
