/**
 * The document `npm run openapi` writes for an integration, held against that integration's
 * provider by an independent validator: Stoplight Prism's validating proxy stands between a whole
 * certification run and the provider, with the document generated for the provider's profile.
 *
 * What counts: every violation of a RESPONSE (the provider's answer breaks the document), and every
 * violation of a request the provider ACCEPTED (2xx): the document calls invalid what the provider
 * must take, so it is too strict. The run sends deliberately invalid requests; the violations Prism
 * finds in those, when the provider refused them, are the document agreeing with the provider.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument, matchEndpoint, readProfile } from "../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../fixtures/profiles/index.ts";
import { CALLBACK_SECRET, MERCHANTS, startCleanroomProvider } from "../fixtures/providers/cleanroom/index.ts";
import { startReferenceProvider } from "../fixtures/providers/reference/index.ts";
import { fileTimeout, startForwarder, startPrismProxy } from "../fixtures/testing/index.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";

fileTimeout(240_000);

const CLEANROOM_PROFILE_PATH = fileURLToPath(new URL("../fixtures/profiles/cleanroom.json", import.meta.url));

/** One entry of Prism's `sl-violations` header. */
interface PrismViolation {
  location: string[];
  severity: string;
  message: string;
}

interface SeenExchange {
  method: string;
  path: string;
  status: number;
  violations: PrismViolation[];
}

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/**
 * A recorder in front of Prism that keeps each exchange's status and Prism's verdict, the
 * `sl-violations` header Prism's proxy adds to the answer it forwards: `location[0]` is "request"
 * or "response", and the status is the provider's. Paths outside the API (the sandbox clock, an
 * extension the document does not describe) go to the provider directly.
 */
async function startRecorder(prismUrl: string, providerUrl: string, seen: SeenExchange[]): Promise<string> {
  const pathOf = (url: string | undefined) => new URL(url ?? "/", "http://x").pathname;
  const viaPrism = (url: string | undefined) => matchEndpoint(pathOf(url)) !== undefined;
  const recorder = await startForwarder({
    upstreamOf: (req) => (viaPrism(req.url) ? prismUrl : providerUrl),
    onAnswer: (req, answer) => {
      if (!viaPrism(req.url)) return;
      const header = answer.headers["sl-violations"];
      const violations = typeof header === "string" ? (JSON.parse(header) as PrismViolation[]) : [];
      seen.push({
        method: req.method ?? "",
        path: pathOf(req.url),
        status: answer.statusCode ?? 0,
        violations,
      });
    },
  });
  cleanups.push(() => recorder.close());
  return recorder.url;
}

/** The violations that say the document is wrong about this provider, one line each. */
function documentViolations(seen: readonly SeenExchange[]): string[] {
  return seen.flatMap(({ method, path, status, violations }) =>
    violations
      .filter((v) => v.location[0] === "response" || (status >= 200 && status < 300))
      .map((v) => `${method} ${path} → ${status}: ${v.location.join(".")}: ${v.message}`),
  );
}

interface Integration {
  profilePath: string;
  providerUrl: string;
  env: Record<string, string>;
}

/** Certifies the provider through Prism with the document of its profile; every exchange Prism saw. */
async function certifyThroughPrism({ profilePath, providerUrl, env }: Integration) {
  const dir = mkdtempSync(join(tmpdir(), "h2h-openapi-prism-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const documentFile = join(dir, "openapi.json");
  writeFileSync(documentFile, JSON.stringify(buildOpenApiDocument(await readProfile(profilePath))));
  const seen: SeenExchange[] = [];
  // Its log of every request off: the violations are read from its header, and it logs those anyway.
  const prism = await startPrismProxy(documentFile, providerUrl, { requestLog: false });
  cleanups.push(() => prism.stop());
  const baseUrl = await startRecorder(prism.url, providerUrl, seen);
  const run = await certifyInProcess({
    ...env,
    H2H_BASE_URL: baseUrl,
    H2H_PROFILE: profilePath,
    H2H_WORKERS: "1",
  });
  cleanups.push(() => rmSync(run.reportDir, { recursive: true, force: true }));
  return { run, seen };
}

/**
 * The run was judged (a verdict, either way: through Prism it is not the provider's own, as Prism
 * answers malformed JSON itself and re-serialises the bodies it forwards), Prism validated the
 * requests, and the document holds.
 */
function expectNoDocumentViolation({ run, seen }: Awaited<ReturnType<typeof certifyThroughPrism>>) {
  expect([0, 1], run.output).toContain(run.exitCode);
  expect(seen.length).toBeGreaterThan(100);
  // Not vacuous: the deliberately invalid requests were found invalid, and refused.
  const refusedInvalid = seen.filter(
    (s) => s.status >= 400 && s.violations.some((v) => v.location[0] === "request"),
  );
  expect(refusedInvalid.length).toBeGreaterThan(10);
  expect(documentViolations(seen)).toEqual([]);
}

// Both runs side by side, in this process (a child per run paid its own start-up), each on a Vitest
// of its own: queued on one, they took twice as long, mostly waiting on Prism.
describe.concurrent("the OpenAPI document of an integration, behind Prism's validating proxy, over a certify run", () => {
  it("the reference profile's document: no violation by the reference provider, none on an accepted request", async () => {
    const provider = await startReferenceProvider({ port: 0 });
    cleanups.push(() => provider.stop());
    expectNoDocumentViolation(
      await certifyThroughPrism({ profilePath: REFERENCE_PROFILE_PATH, providerUrl: provider.url, env: {} }),
    );
  });

  it("the clean-room profile's document: no violation by the clean-room provider, none on an accepted request", async () => {
    const provider = await startCleanroomProvider({ port: 0 });
    cleanups.push(() => provider.close());
    expectNoDocumentViolation(
      await certifyThroughPrism({
        profilePath: CLEANROOM_PROFILE_PATH,
        providerUrl: provider.url,
        env: {
          H2H_API_KEY: MERCHANTS[0]?.apiKey ?? "",
          H2H_API_KEY_2: MERCHANTS[1]?.apiKey ?? "",
          H2H_CALLBACK_SECRET: CALLBACK_SECRET,
        },
      }),
    );
  });
});
