/** `npm run provider`: the reference provider alone, until Ctrl-C. */
import {
  boundHeapGrowth,
  DEFAULT_CALLBACK_ATTEMPT_TIMEOUT_MS,
  DEFAULT_CALLBACK_RETRY_DELAYS_MS,
  DEFAULT_LIFETIME_SECONDS,
  DEFAULT_PROCESSING_DELAY_MS,
  DEFAULT_RETENTION_SECONDS,
  FAULTS,
  ProviderOptionsError,
  serveUntilSignal,
  startReferenceProvider,
} from "../../fixtures/providers/reference/index.ts";
import { defineCommand, EXIT, LISTEN_OPTIONS, numberListFlag } from "../cli.ts";

export const provider = defineCommand({
  name: "provider",
  summary:
    "Starts the reference provider alone and prints its URL. Ctrl-C stops it cleanly: pending status\n" +
    "changes are cancelled, in-flight callbacks finished, retries abandoned (and counted); a second\n" +
    "Ctrl-C exits at once (130).",
  options: {
    ...LISTEN_OPTIONS,
    lifetime: {
      type: "number",
      value: "SECONDS",
      description: `how long an order awaits confirmation (default: ${DEFAULT_LIFETIME_SECONDS})`,
    },
    retention: {
      type: "number",
      value: "SECONDS",
      description: `how long an order is kept once final; then its id is unknown, its merchantOrderID stays used (default: ${DEFAULT_RETENTION_SECONDS})`,
    },
    "processing-delay": {
      type: "number",
      value: "MS",
      description: `delay before each status change after confirmation (default: ${DEFAULT_PROCESSING_DELAY_MS})`,
    },
    "callback-retries": {
      type: "string",
      value: "LIST",
      description: `comma-separated waits between callback attempts, in ms (default: ${DEFAULT_CALLBACK_RETRY_DELAYS_MS.join(",")})`,
    },
    "callback-timeout": {
      type: "number",
      value: "MS",
      description: `timeout of one callback attempt (default: ${DEFAULT_CALLBACK_ATTEMPT_TIMEOUT_MS})`,
    },
    fault: {
      type: "string",
      multiple: true,
      value: "NAME",
      description: "switch a named fault on (repeatable); --list-faults lists them",
    },
    "list-faults": { type: "boolean", description: "print the fault catalogue and exit" },
  },
  knownErrors: [[ProviderOptionsError, EXIT.usage]],
  async run(options) {
    if (options["list-faults"]) {
      for (const fault of FAULTS.values())
        console.log(`${fault.name.padEnd(44)} ${fault.category.padEnd(10)} ${fault.description}`);
      return EXIT.ok;
    }
    const retries = options["callback-retries"];
    // A server of its own: its heap stays near what it holds (fixtures/providers/reference/heap.ts).
    boundHeapGrowth();
    const running = await startReferenceProvider({
      port: options.port ?? 0,
      host: options.host ?? "127.0.0.1",
      lifetimeSeconds: options.lifetime,
      retentionSeconds: options.retention,
      processingDelayMs: options["processing-delay"],
      callbackRetryDelaysMs: retries === undefined ? undefined : numberListFlag("callback-retries", retries),
      callbackAttemptTimeoutMs: options["callback-timeout"],
      faults: options.fault ?? [],
      log: (line) => console.log(`[provider] ${line}`),
    });
    await serveUntilSignal(running);
    return EXIT.ok;
  },
});
