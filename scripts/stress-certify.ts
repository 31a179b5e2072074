import { runCli } from "./cli.ts";
import { stressCertify } from "./commands/stress-certify.ts";

await runCli(stressCertify);
