/**
 * `npx vitest run --project contract` as a provider's team runs it in their own Vitest CI: the
 * contract specs against the target at H2H_BASE_URL, with the settings certify reads. Green
 * against the reference provider, every spec file run; red against it with a fault, naming the
 * checks that failed, in the one spec file that holds them (a file filter, as a provider's CI may
 * give one: the other files' probes would cost most of the run and prove nothing more here).
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  REFERENCE_API_KEYS,
  REFERENCE_CALLBACK_SECRET,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { PROJECT_ROOT } from "../run-setup/index.ts";

fileTimeout(60_000);

/**
 * The contract project in a child, with only the H2H_* variables given (H2H_WORKERS kept), its
 * spec files filtered as Vitest's command line filters them (none: every file).
 */
async function runContractProject(
  faults: string[],
  filters: string[] = [],
): Promise<{ exitCode: number | null; output: string }> {
  const provider = await startReferenceProvider({ port: 0, faults });
  try {
    return await new Promise((resolve) => {
      const child = spawn("npx", ["vitest", "run", "--project", "contract", ...filters], {
        cwd: PROJECT_ROOT,
        env: {
          ...Object.fromEntries(
            Object.entries(process.env).filter(
              ([name]) => !name.startsWith("H2H_") || name === "H2H_WORKERS",
            ),
          ),
          H2H_BASE_URL: provider.url,
          H2H_API_KEY: REFERENCE_API_KEYS.merchant1,
          H2H_API_KEY_2: REFERENCE_API_KEYS.merchant2,
          H2H_CALLBACK_SECRET: REFERENCE_CALLBACK_SECRET,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (c: Buffer) => (output += c.toString()));
      child.stderr.on("data", (c: Buffer) => (output += c.toString()));
      child.once("exit", (exitCode) => resolve({ exitCode, output }));
    });
  } finally {
    await provider.stop();
  }
}

describe("npx vitest run --project contract", () => {
  it("passes the reference provider at H2H_BASE_URL, every spec file run", async () => {
    const { exitCode, output } = await runContractProject([]);
    expect(exitCode, output).toBe(0);
    expect(output).toMatch(/certifying http:\/\/127\.0\.0\.1:\d+ with profile "reference"/);
    for (const spec of ["lifecycle", "callbacks", "cross-merchant", "auth-and-validation"])
      expect(output).toContain(`certify/specs/${spec}.spec.ts`);
    expect(output).not.toContain(REFERENCE_API_KEYS.merchant1);
  });

  it("fails the provider with a fault, naming the checks it fails", async () => {
    const spec = "certify/specs/auth-and-validation.spec.ts";
    const { exitCode, output } = await runContractProject(["auth-bypass"], [spec]);
    expect(exitCode, output).toBe(1);
    expect(output).toContain(spec);
    expect(output).toContain("behaviour.rejects-missing-api-key");
    expect(output).not.toContain(REFERENCE_API_KEYS.merchant1);
  });
});
