/**
 * `npm run provider`: starts the reference provider alone and prints its URL. Ctrl-C stops it
 * cleanly: pending status changes are cancelled, in-flight callbacks finished, retries abandoned
 * (and counted); a second Ctrl-C exits at once.
 */
import { parseArgs } from "node:util";
import { FAULTS, startReferenceProvider } from "../fixtures/reference-provider/index.ts";
import { numberFlag, runCli, UsageError } from "./cli.ts";

const USAGE = `usage: npm run provider -- [options]
  --port N                 port to listen on (default: a free port)
  --host ADDR              address to listen on (default: 127.0.0.1)
  --lifetime SECONDS       how long an order awaits confirmation (default: 30)
  --processing-delay MS    delay before each status change after confirmation (default: 200)
  --callback-retries LIST  comma-separated waits between callback attempts, in ms (default: 500,1000,2000,4000)
  --callback-timeout MS    timeout of one callback attempt (default: 5000)
  --fault NAME             switch a named fault on (repeatable); --list-faults lists them
  --list-faults            print the fault catalogue and exit
  --help`;

await runCli(async () => {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const { values } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values["list-faults"]) {
    for (const fault of FAULTS.values())
      console.log(`${fault.name.padEnd(44)} ${fault.category.padEnd(10)} ${fault.description}`);
    return 0;
  }
  const retries = values["callback-retries"];
  const provider = await startReferenceProvider({
    port: numberFlag("port", values.port) ?? 0,
    host: values.host ?? "127.0.0.1",
    lifetimeSeconds: numberFlag("lifetime", values.lifetime),
    processingDelayMs: numberFlag("processing-delay", values["processing-delay"]),
    callbackRetryDelaysMs:
      retries === undefined
        ? undefined
        : retries === ""
          ? []
          : retries.split(",").map((part) => numberFlag("callback-retries", part) as number),
    callbackAttemptTimeoutMs: numberFlag("callback-timeout", values["callback-timeout"]),
    faults: values.fault ?? [],
    log: (line) => console.log(`[provider] ${line}`),
  });
  const faults = provider.options.faults;
  console.log(`reference provider listening on ${provider.url}`);
  console.log(
    `  lifetime ${provider.options.lifetimeSeconds}s, processing delay ${provider.options.processingDelayMs}ms, ` +
      `callback retries [${provider.options.callbackRetryDelaysMs.join(", ")}]ms, ` +
      `faults: ${faults.length > 0 ? faults.join(", ") : "none"}`,
  );
  console.log("  API keys: sandbox-key-merchant-1, sandbox-key-merchant-2 (sandbox only). Ctrl-C stops.");

  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.once(signal, () => {
        console.log("second signal: exiting without waiting");
        process.exit(130);
      });
      console.log(`${signal}: stopping…`);
      resolve();
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  });
  const report = await provider.stop();
  console.log(
    `stopped: ${report.finishedInFlightAttempts} in-flight callback attempts finished, ` +
      `${report.abandonedDeliveries} callback retries abandoned, ` +
      `${report.cancelledTransitions} pending status changes and ${report.cancelledExpiries} expiries cancelled`,
  );
  return 0;
});

function parse() {
  return parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      lifetime: { type: "string" },
      "processing-delay": { type: "string" },
      "callback-retries": { type: "string" },
      "callback-timeout": { type: "string" },
      fault: { type: "string", multiple: true },
      "list-faults": { type: "boolean" },
      help: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
}
