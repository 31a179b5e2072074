/**
 * The watchdog process of one container (see watchContainer in container-engine.ts): it waits
 * for its standard input to close. "release" first: the owner stopped the container itself, so
 * nothing is left to do. Closed without it: the owner ended (Ctrl-C, SIGTERM, a crash, SIGKILL),
 * so the container is stopped (SIGTERM, then SIGKILL after 5 s) and removed.
 */
import { getContainerRuntimeClient } from "testcontainers";
import { stopAndRemove } from "./container-engine.ts";

const containerId = process.argv[2];
const STOP_GRACE_MS = 5_000;

if (containerId) {
  let input = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    input += chunk;
  });
  process.stdin.on("error", () => {});
  process.stdin.once("close", () => {
    if (input.includes("release")) process.exit(0);
    const giveUp = setTimeout(() => process.exit(1), 60_000);
    getContainerRuntimeClient()
      .then((client) => stopAndRemove(client, containerId, STOP_GRACE_MS))
      .then(
        () => process.exit(0),
        () => {
          clearTimeout(giveUp);
          process.exit(1);
        },
      );
  });
}
