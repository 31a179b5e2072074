import { runCli } from "./cli.ts";
import { mutants } from "./commands/mutants.ts";

await runCli(mutants);
