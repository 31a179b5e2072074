import { runCli } from "./cli.ts";
import { certify } from "./commands/certify.ts";

await runCli(certify);
