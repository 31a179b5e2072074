import { runCli } from "./cli.ts";
import { cleanroomProvider } from "./commands/cleanroom-provider.ts";

await runCli(cleanroomProvider);
