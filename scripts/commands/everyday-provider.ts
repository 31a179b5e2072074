/** `npm run provider:everyday`: the everyday sandbox (Express 5) alone, until SIGINT or SIGTERM. */
import { DEFAULTS, startEverydayProvider } from "../../fixtures/providers/everyday/index.ts";
import { defineCommand, EXIT, LISTEN_OPTIONS, numberListFlag } from "../cli.ts";

export const everydayProvider = defineCommand({
  name: "provider:everyday",
  summary:
    "Starts the everyday sandbox (fixtures/providers/everyday, Express 5) and prints its URL; Ctrl-C stops it.",
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
    "appeal-delay": {
      type: "number",
      value: "MS",
      description: `from failed_by_terminal to succeeded_by_appeal (default: ${DEFAULTS.appealDelayMs})`,
    },
    "callback-retries": {
      type: "string",
      value: "LIST",
      description: `comma-separated waits between callback attempts, in ms (default: ${DEFAULTS.callbackRetryDelaysMs.join(",")})`,
    },
    quiet: { type: "boolean", description: "print no line per request and callback attempt" },
  },
  async run(options) {
    const retries = options["callback-retries"];
    const running = await startEverydayProvider({
      port: options.port ?? 0,
      host: options.host ?? "127.0.0.1",
      lifetimeMs: options.lifetime === undefined ? undefined : options.lifetime * 1000,
      processingDelayMs: options["processing-delay"],
      appealDelayMs: options["appeal-delay"],
      callbackRetryDelaysMs: retries === undefined ? undefined : numberListFlag("callback-retries", retries),
      log: options.quiet ? undefined : (line) => console.log(`[everyday] ${line}`),
    });
    console.log(`everyday provider listening on ${running.url}`);
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    console.log(`${signal}: stopping`);
    await running.close();
    return EXIT.ok;
  },
});
