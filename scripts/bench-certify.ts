import { runCli } from "./cli.ts";
import { benchCertify } from "./commands/bench-certify.ts";

await runCli(benchCertify);
