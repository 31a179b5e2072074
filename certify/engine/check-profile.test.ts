/**
 * `npm run certify -- --check-profile` as a user runs it: from their own directory (npm changes
 * into the package root and says where the user was in INIT_CWD), with a relative H2H_PROFILE.
 * It validates, prints the effective profile with its defaults, and sends no request.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EXAMPLE_FOREIGN_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import { commandArgs, fileTimeout } from "../../fixtures/testing/index.ts";
import { startHostileTarget } from "../testing/hostile-target.ts";

fileTimeout(30_000);

const root = fileURLToPath(new URL("../..", import.meta.url));

function checkProfile(env: Record<string, string>): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...commandArgs("certify"), "--check-profile"], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (exitCode) => resolve({ exitCode, output }));
  });
}

describe("npm run certify -- --check-profile", () => {
  it("validates a profile named relative to the user's directory and prints it with its defaults, sending nothing", async () => {
    // A target that counts what reaches it: nothing may.
    const target = await startHostileTarget((_request, _body, response) => response.end());
    try {
      const userDir = mkdtempSync(join(tmpdir(), "h2h-user-"));
      const profile = JSON.parse(readFileSync(EXAMPLE_FOREIGN_PROFILE_PATH, "utf8"));
      delete profile.timeouts; // left to its default
      writeFileSync(join(userDir, "acme.json"), JSON.stringify(profile));
      const { exitCode, output } = await checkProfile({
        INIT_CWD: userDir,
        H2H_PROFILE: "acme.json",
        H2H_BASE_URL: target.url,
        H2H_API_KEY: "key-of-acme-0001",
      });
      expect(exitCode, output).toBe(0);
      expect(output).toContain(`profile ${join(userDir, "acme.json")} is valid: "acme-payments-sandbox"`);
      const printed = JSON.parse(output.slice(output.indexOf("{"))) as Record<string, unknown>;
      expect(printed.timeouts).toEqual({ requestMs: 5000, callbackMs: 15000 });
      expect(printed.expectedStatus).toMatchObject({ createMobileCommerceOrder: "payment_pending" });
      expect(target.requests).toBe(0);
    } finally {
      await target.stop();
    }
  });

  it("refuses a bad profile with exit 64, the path of each problem and its fix", async () => {
    const userDir = mkdtempSync(join(tmpdir(), "h2h-user-"));
    const profile = JSON.parse(readFileSync(EXAMPLE_FOREIGN_PROFILE_PATH, "utf8"));
    profile.callbacks.idPaht = profile.callbacks.idPath;
    delete profile.callbacks.idPath;
    delete profile.confirmation.wrongCode;
    writeFileSync(join(userDir, "acme.json"), JSON.stringify(profile, null, 2));
    const { exitCode, output } = await checkProfile({ INIT_CWD: userDir, H2H_PROFILE: "acme.json" });
    expect(exitCode, output).toBe(64);
    expect(output).toContain(`error: invalid profile ${join(userDir, "acme.json")}:`);
    expect(output).toContain('callbacks.idPaht is not a known key (did you mean "idPath"?)');
    expect(output).toContain(
      "confirmation.wrongCode is missing: expected a string (A code the sandbox refuses as wrong.)",
    );
    expect(output).not.toMatch(/\n\s+at /);
  });
});
