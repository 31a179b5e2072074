import { runCli } from "./cli.ts";
import { certifyReceiver } from "./commands/certify-receiver.ts";

await runCli(certifyReceiver);
