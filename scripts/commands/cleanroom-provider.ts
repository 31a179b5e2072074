/** `npm run provider:cleanroom`: the clean-room sandbox alone, until SIGINT or SIGTERM. */
import { DEFAULTS, startCleanroomProvider } from "../../fixtures/providers/cleanroom/index.ts";
import { defineCommand, EXIT, LISTEN_OPTIONS, numberListFlag } from "../cli.ts";

export const cleanroomProvider = defineCommand({
  name: "provider:cleanroom",
  summary:
    "Starts the clean-room sandbox (fixtures/providers/cleanroom) and prints its URL; Ctrl-C stops it.",
  options: {
    ...LISTEN_OPTIONS,
    lifetime: {
      type: "number",
      value: "SECONDS",
      description: `how long an order awaits confirmation (default: ${DEFAULTS.lifetimeMs / 1000})`,
    },
    "processing-delay": {
      type: "number",
      value: "MS",
      description: `from an accepted code to the final status (default: ${DEFAULTS.processingDelayMs})`,
    },
    "callback-retries": {
      type: "string",
      value: "LIST",
      description: `comma-separated waits between callback attempts, in ms (default: ${DEFAULTS.callbackRetryDelaysMs.join(",")})`,
    },
  },
  async run(options) {
    const retries = options["callback-retries"];
    const running = await startCleanroomProvider({
      port: options.port ?? 0,
      host: options.host ?? "127.0.0.1",
      lifetimeMs: options.lifetime === undefined ? undefined : options.lifetime * 1000,
      processingDelayMs: options["processing-delay"],
      callbackRetryDelaysMs: retries === undefined ? undefined : numberListFlag("callback-retries", retries),
      log: (line) => console.log(`[cleanroom] ${line}`),
    });
    console.log(`cleanroom provider listening on ${running.url}`);
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    console.log(`${signal}: stopping`);
    await running.close();
    return EXIT.ok;
  },
});
