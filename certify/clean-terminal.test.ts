/**
 * Clean terminals: a target whose answers carry ESC, CR and BEL (a fake green verdict,
 * a terminal title) gets none of them onto certify's console raw: they show escaped. The run is in
 * this process, as `npm run certify` runs it: its console is what it prints, and whatever else
 * reaches this process's console meanwhile.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";
import { type HostileTarget, startHostileTarget, writeHostileProfile } from "./testing/hostile-target.ts";
import { captureStrayOutput } from "./testing/stray-output.ts";

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
    const stray = captureStrayOutput();
    const run = await certifyInProcess({
      H2H_BASE_URL: target.url,
      H2H_API_KEY: "escape-target-key",
      H2H_PROFILE: writeHostileProfile(dir),
    }).finally(() => stray.restore());
    const { exitCode } = run;
    const output = `${run.output}\n${stray.text()}`;
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
