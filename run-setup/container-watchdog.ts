/**
 * The watchdog process of one container (see watchContainer in container-engine.ts): it waits
 * for its standard input to close. "release" first: the owner stopped the container itself, so
 * nothing is left to do. Closed without it: the owner ended (Ctrl-C, SIGTERM, a crash, SIGKILL),
 * so the container is stopped (SIGTERM, then SIGKILL after 5 s) and removed.
 */

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
    // Loaded only now: most watchdogs are released, and loading testcontainers at the start was
    // three quarters of each one's CPU (one per container a run starts).
    Promise.all([import("testcontainers"), import("./container-engine.ts")])
      .then(async ([{ getContainerRuntimeClient }, { stopAndRemove }]) =>
        stopAndRemove(await getContainerRuntimeClient(), containerId, STOP_GRACE_MS),
      )
      .then(
        () => process.exit(0),
        () => {
          clearTimeout(giveUp);
          process.exit(1);
        },
      );
  });
}
