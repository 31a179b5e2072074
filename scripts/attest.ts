import { runCli } from "./cli.ts";
import { attest } from "./commands/attest.ts";

await runCli(attest);
