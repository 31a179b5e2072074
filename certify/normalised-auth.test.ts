/**
 * Only a different key is a wrong key. Small providers, each the reference provider behind an
 * authentication of its own (a front that reads the Authorization header as that provider's code
 * would, and passes the key it read on): one that trims the header and matches
 * `/^Bearer\s+(\S+)$/`, as most JavaScript does, is conformant through its honest profile (one
 * that declares no strictInput), the no-break-space probes reported as advisories; one that
 * takes a key with a character added or removed, or in another letter case, is not.
 */

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { certifyInProcess, sharedSpecRunner } from "./testing/certify-in-process.ts";

fileTimeout(150_000);

const KEYS: readonly string[] = Object.values(REFERENCE_API_KEYS);

/** How a provider reads the key from its Authorization header: the key it takes, or undefined. */
type ReadKey = (authorization: string | undefined) => string | undefined;

const everyday: ReadKey = (authorization) => /^Bearer\s+(\S+)$/.exec(authorization?.trim() ?? "")?.[1];
const prefixMatch: ReadKey = (authorization) => {
  const given = everyday(authorization);
  return given === undefined ? undefined : KEYS.find((key) => given.startsWith(key));
};
const caseInsensitive: ReadKey = (authorization) => {
  const given = everyday(authorization)?.toLowerCase();
  return KEYS.find((key) => key.toLowerCase() === given);
};
const oneCharacterShort: ReadKey = (authorization) => {
  const given = everyday(authorization);
  return given === undefined ? undefined : KEYS.find((key) => key === given || key.slice(0, -1) === given);
};

/** The reference provider behind `readKey`: a key it reads is passed on as the key, anything else as is. */
async function providerReadingKeysWith(readKey: ReadKey) {
  const inner = await startReferenceProvider({ port: 0 });
  const innerUrl = new URL(inner.url);
  const front = createServer((req: IncomingMessage, res: ServerResponse) => {
    const key = readKey(req.headers.authorization);
    const headers = { ...req.headers };
    if (key !== undefined && KEYS.includes(key)) headers.authorization = `Bearer ${key}`;
    const upstream = httpRequest(
      { host: innerUrl.hostname, port: innerUrl.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
    async stop() {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
      await inner.stop();
    },
  };
}

/** The reference profile as a team would write it for such a provider: no strictInput. */
function honestProfile(): string {
  const { strictInput: _strict, ...profile } = JSON.parse(
    readFileSync(new URL("../fixtures/profiles/reference.json", import.meta.url), "utf8"),
  ) as Record<string, unknown>;
  const dir = mkdtempSync(join(tmpdir(), "h2h-normalised-auth-"));
  writeFileSync(join(dir, "profile.json"), JSON.stringify(profile));
  return join(dir, "profile.json");
}

const specRunner = sharedSpecRunner();
afterAll(() => specRunner.close());

async function certify(readKey: ReadKey, only?: string[]) {
  const provider = await providerReadingKeysWith(readKey);
  try {
    return await certifyInProcess(
      {
        H2H_BASE_URL: provider.url,
        H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
        H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
        H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
        H2H_PROFILE: honestProfile(),
        H2H_SEED: "5",
      },
      { specRunner: specRunner.run, ...(only ? { only } : {}) },
    );
  } finally {
    await provider.stop();
  }
}

describe.concurrent("a provider's reading of its Authorization header", () => {
  it("trim() and \\s: conformant, each no-break-space probe an advisory that says what the provider did", async () => {
    const run = await certify(everyday);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.report.verdict).toBe("conformant");
    const padded = run.report.checks.filter(
      (c) => c.check === "behaviour.rejects-near-miss-api-key" && /no-break space/.test(c.case ?? ""),
    );
    expect(padded).toHaveLength(8);
    for (const probe of padded) {
      expect(probe.status).toBe("failed");
      expect(probe.required).toBe(false);
      expect(probe.detail).toMatch(/^accepted: HTTP 200/);
      expect(probe.ruleSource?.kind).toBe("advisory");
      expect(probe.reason).toMatch(/trimming Unicode whitespace/);
    }
    // The other credentials were all refused.
    const others = run.report.checks.filter(
      (c) =>
        c.check === "behaviour.rejects-near-miss-api-key" && !/no-break space|a space and/.test(c.case ?? ""),
    );
    expect(others.length).toBeGreaterThan(8);
    expect(others.filter((c) => c.status !== "passed")).toEqual([]);
  });

  it.for([
    ["a key with characters added at its end (a prefix match)", prefixMatch, /a character added at the end/],
    ["a key in another letter case", caseInsensitive, /in another letter case/],
    ["a key with a character removed", oneCharacterShort, /the last character removed/],
  ] as const)("%s: not conformant", async ([, readKey, failing], { expect }) => {
    const run = await certify(readKey, ["behaviour.rejects-near-miss-api-key"]);
    expect(run.report.verdict, run.output).toBe("not conformant");
    const failed = run.report.checks.filter((c) => c.status === "failed" && c.required);
    expect(failed.length).toBeGreaterThan(0);
    for (const check of failed) expect(check.case).toMatch(failing);
  });
});
