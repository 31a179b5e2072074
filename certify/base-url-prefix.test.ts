/**
 * A base URL's path prefix is kept: the reference provider behind a gateway that serves it under
 * `/h2h-gateway` only (and answers 404 to anything else) is certified conformant, every request
 * sent under the prefix.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout, type RunningForwarder, startForwarder } from "../fixtures/testing/index.ts";
import { certifyInProcess, type InProcessRun } from "./testing/certify-in-process.ts";

fileTimeout(180_000);

const PREFIX = "/h2h-gateway";

let provider: RunningReferenceProvider;
let gateway: RunningForwarder;
const outsidePrefix: string[] = [];
let run: InProcessRun;

beforeAll(async () => {
  provider = await startReferenceProvider({ port: 0 });
  gateway = await startForwarder({
    upstreamOf: () => provider.url,
    rewrite: (req) => {
      const path = req.url ?? "/";
      if (path.startsWith(`${PREFIX}/`)) return { path: path.slice(PREFIX.length), headers: req.headers };
      outsidePrefix.push(`${req.method} ${path}`);
      return undefined;
    },
  });
  // A trailing slash, as a user may well write it.
  run = await certifyInProcess(
    { H2H_BASE_URL: `${gateway.url}${PREFIX}/` },
    { specFiles: ["mobile-commerce.spec.ts"] },
  );
});

afterAll(async () => {
  await gateway?.close();
  await provider?.stop();
});

describe("H2H_BASE_URL with a path prefix", () => {
  it("sends every request under the prefix, and the target behind it is conformant", () => {
    expect(outsidePrefix).toEqual([]);
    expect(run.report.verdict, run.output).toBe("conformant");
    expect(run.report.exchanges.length).toBeGreaterThan(0);
    for (const exchange of run.report.exchanges)
      expect(new URL(exchange.request.url).pathname.startsWith(`${PREFIX}/api/`), exchange.request.url).toBe(
        true,
      );
  });
});
