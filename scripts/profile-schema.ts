import { runCli } from "./cli.ts";
import { profileSchema } from "./commands/profile-schema.ts";

await runCli(profileSchema);
