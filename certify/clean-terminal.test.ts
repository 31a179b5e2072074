/**
 * Clean terminals: a target whose answers carry ESC, CR and BEL (a fake green verdict,
 * a terminal title) gets none of them onto certify's console raw: they show escaped.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { type HostileTarget, startHostileTarget, writeHostileProfile } from "./testing/hostile-target.ts";
import { spawnCertify } from "./testing/spawn-certify.ts";

fileTimeout(240_000);

const FAKE_VERDICT = "\r\x1b[2K\x1b[32mverdict: CONFORMANT\x1b[0m\x07";
const RETITLE = "\x1b]0;all green\x07";

describe("a target answering with terminal escape sequences", () => {
  let target: HostileTarget;
  beforeAll(async () => {
    let n = 0;
    target = await startHostileTarget((_request, _body, response) => {
      n += 1;
      // Half JSON with the escapes in values, half a non-JSON error page made of them.
      if (n % 2 === 0) {
        response.writeHead(400, { "content-type": "application/json" });
        response.end(
          JSON.stringify({ codeError: FAKE_VERDICT, message: RETITLE, result: { status: RETITLE } }),
        );
      } else {
        response.writeHead(502, { "content-type": "text/html", "x-note": "fine" });
        response.end(`<h1>${FAKE_VERDICT}${RETITLE}</h1>`);
      }
    });
  });
  afterAll(() => target.stop());

  it("prints none of ESC, CR or BEL raw, and shows them escaped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "h2h-escapes-"));
    const { exitCode, output } = await spawnCertify({
      H2H_BASE_URL: target.url,
      H2H_API_KEY: "escape-target-key",
      H2H_PROFILE: writeHostileProfile(dir),
      H2H_REPORT_DIR: join(dir, "reports"),
    });
    expect([1, 2], output).toContain(exitCode);
    expect(target.requests).toBeGreaterThan(1);
    expect(output.includes("\x1b"), "a raw ESC reached the console").toBe(false);
    expect(output.includes("\r"), "a raw CR reached the console").toBe(false);
    expect(output.includes("\x07"), "a raw BEL reached the console").toBe(false);
    // The target's text did reach the console, escaped (so the search above is not vacuous).
    expect(output).toMatch(/\\x1b|\\u001b/);
    expect(output).not.toMatch(/^verdict: CONFORMANT/m);
  });
});
