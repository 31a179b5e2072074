import { runCli } from "./cli.ts";
import { imageProvider } from "./commands/image-provider.ts";

await runCli(imageProvider);
