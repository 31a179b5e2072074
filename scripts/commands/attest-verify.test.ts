/**
 * `attest` and `verify` as a user runs them: the exit codes, what they print, and that no line
 * holds key material, whether the key came as a file or as the PEM itself in H2H_ATTEST_KEY.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ATTESTATION_FILE, REPORT_FILES } from "../../certify/index.ts";
import { type CliOutput, EXIT, runCli } from "../cli.ts";
import { attest } from "./attest.ts";
import { verify } from "./verify.ts";

const work = mkdtempSync(join(tmpdir(), "h2h-attest-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
const privatePem = pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const privateDer = pair.privateKey.export({ type: "pkcs8", format: "der" });
const privatePath = join(work, "attest.pem");
const publicPath = join(work, "attest.pub.pem");
writeFileSync(privatePath, privatePem);
writeFileSync(publicPath, pair.publicKey.export({ type: "spki", format: "pem" }));

/** What the private key looks like in any spelling a line could carry it. */
const keySpellings = [
  ...privatePem.split("\n").filter((line) => line !== "" && !line.startsWith("-----")),
  privateDer.toString("base64").slice(0, 40),
  privateDer.toString("hex").slice(0, 40),
  // The private scalar alone (the last 32 bytes of a P-256 PKCS#8's inner key are not it, the JWK's d is).
  pair.privateKey.export({ format: "jwk" }).d as string,
];

let lines: string[] = [];
const output: CliOutput = { out: (line) => lines.push(line), err: (line) => lines.push(line) };
beforeEach(() => {
  lines = [];
  vi.spyOn(console, "log").mockImplementation((...args) => void lines.push(args.join(" ")));
  vi.spyOn(console, "error").mockImplementation((...args) => void lines.push(args.join(" ")));
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  process.exitCode = undefined;
});

function expectNoKeyMaterial(): void {
  const all = lines.join("\n");
  for (const spelling of keySpellings) expect(all).not.toContain(spelling);
}

let sets = 0;
function reportSet(verdict: "conformant" | "not conformant" = "conformant"): string {
  const dir = join(work, `reports-${++sets}`);
  mkdirSync(dir, { recursive: true });
  const report = {
    tool: { name: "h2h-certify", version: "0.0.0" },
    runId: `run-${sets}`,
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:00:01.000Z",
    durationMs: 1000,
    target: {
      baseUrl: "https://user:****@127.0.0.1:8443",
      reference: false,
      profileName: "p",
      profilePath: join(work, "none.json"),
    },
    verdict,
    errors: [],
    warnings: [],
    summary: [],
    totals: { passed: 1, failed: 0, failedRequired: 0, advisories: 0, skipped: 0, notEvaluated: 0 },
    checks: [],
    exchanges: [],
    callbacks: [],
  };
  writeFileSync(join(dir, REPORT_FILES.json), JSON.stringify(report));
  writeFileSync(join(dir, REPORT_FILES.junit), "<testsuites/>");
  return dir;
}

describe("attest, then verify", () => {
  it("a key file: attest exits 0, verify prints the verdict and exits with its code", async () => {
    const dir = reportSet();
    expect(await runCli(attest, ["--reports", dir, "--key", privatePath], output)).toBe(EXIT.ok);
    expect(lines.join("\n")).toContain(`attestation: ${join(dir, ATTESTATION_FILE)}`);
    expect(await runCli(verify, [join(dir, ATTESTATION_FILE), "--key", publicPath], output)).toBe(EXIT.ok);
    const said = lines.join("\n");
    expect(said).toMatch(/verified: the signature is the ECDSA P-256 key's/);
    expect(said).toMatch(/verdict: conformant \(PASSED\), run run-\d+, target https:\/\/127\.0\.0\.1:8443\//);
    // The base URL's user and masked password are left out of the statement altogether.
    expect(said).not.toContain("user:");
    expectNoKeyMaterial();
  });

  it("the PEM itself in H2H_ATTEST_KEY; a not-conformant verdict verified exits 1, as certify's", async () => {
    const dir = reportSet("not conformant");
    vi.stubEnv("H2H_ATTEST_KEY", privatePem);
    expect(await runCli(attest, ["--reports", dir], output)).toBe(EXIT.ok);
    expect(lines.join("\n")).toContain("signed with the ECDSA P-256 key of H2H_ATTEST_KEY");
    expect(await runCli(verify, [join(dir, ATTESTATION_FILE), "--key", publicPath], output)).toBe(
      EXIT.failed,
    );
    expect(lines.join("\n")).toContain("verdict: not conformant (FAILED)");
    expectNoKeyMaterial();
  });

  it("a changed report: verify exits 1 naming the file", async () => {
    const dir = reportSet();
    await runCli(attest, ["--reports", dir, "--key", privatePath], output);
    writeFileSync(join(dir, REPORT_FILES.junit), "<testsuites></testsuites>");
    expect(await runCli(verify, [join(dir, ATTESTATION_FILE), "--key", publicPath], output)).toBe(
      EXIT.failed,
    );
    expect(lines.join("\n")).toMatch(
      /✗ h2h-certify\.junit\.xml: changed after it was attested: its SHA-256 is [0-9a-f]{64}, the attestation says [0-9a-f]{64}/,
    );
    expectNoKeyMaterial();
  });

  it("bad usage exits 64 and never shows the key: a broken PEM, the private key to verify, no key", async () => {
    const dir = reportSet();
    vi.stubEnv("H2H_ATTEST_KEY", privatePem.replace(/\n[A-Za-z0-9+/]{8}/, "\n********"));
    expect(await runCli(attest, ["--reports", dir], output)).toBe(EXIT.usage);
    expect(lines.join("\n")).toContain("H2H_ATTEST_KEY holds a PRIVATE KEY block that does not parse");
    vi.unstubAllEnvs();
    await runCli(attest, ["--reports", dir, "--key", privatePath], output);
    expect(await runCli(verify, [join(dir, ATTESTATION_FILE), "--key", privatePath], output)).toBe(
      EXIT.usage,
    );
    expect(lines.join("\n")).toContain("holds a private key: verify needs only the public key");
    expect(await runCli(verify, [join(dir, ATTESTATION_FILE)], output)).toBe(EXIT.usage);
    expect(await runCli(attest, ["--reports", join(work, "no-reports")], output)).toBe(EXIT.usage);
    expect(await runCli(attest, ["--reports", join(work, "no-reports"), "--key", privatePath], output)).toBe(
      EXIT.usage,
    );
    expect(lines.join("\n")).toContain("h2h-certify.json cannot be read (ENOENT)");
    expectNoKeyMaterial();
    // The attestation on disk holds no key material either.
    const written = readFileSync(join(dir, ATTESTATION_FILE), "utf8");
    const statement = Buffer.from(JSON.parse(written).payload, "base64").toString("utf8");
    for (const spelling of keySpellings) {
      expect(written).not.toContain(spelling);
      expect(statement).not.toContain(spelling);
    }
  });
});
