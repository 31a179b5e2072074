import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type HostedSpecRun, hostSpecs, oneCertificationAtATime } from "./spec-host.ts";
import type { SpecFile, SpecTest } from "./spec-tasks.ts";

const API = new URL("./spec-api.ts", import.meta.url).href;
const CONTEXT = new URL("./spec-context.ts", import.meta.url).href;
const TSX = fileURLToPath(new URL("../../scripts/tsx.mjs", import.meta.url));
const folder = mkdtempSync(join(tmpdir(), "h2h-spec-host-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

let files = 0;
/** A spec file of its own (a new path: its first import in this process), with this body. */
function specFile(body: string): string {
  const path = join(folder, `f${files++}.spec.ts`);
  writeFileSync(
    path,
    `import { afterAll, beforeAll, beforeEach, describe, it } from ${JSON.stringify(API)};\n` +
      `import { provided, sayer } from ${JSON.stringify(CONTEXT)};\nconst say = sayer();\n${body}\n`,
  );
  return path;
}

interface Heard {
  tests: SpecTest[];
  files: SpecFile[];
  said: string[];
  errors: string[];
}

async function host(paths: string[], options: Partial<HostedSpecRun> = {}): Promise<Heard> {
  const heard: Heard = { tests: [], files: [], said: [], errors: [] };
  await hostSpecs({
    files: paths,
    root: folder,
    provided: {},
    say: (line) => heard.said.push(line),
    listener: {
      onTest: (test) => heard.tests.push(test),
      onFileEnd: (file) => heard.files.push(file),
      onRunError: (message) => heard.errors.push(message),
    },
    lanes: 2,
    testTimeout: 2_000,
    hookTimeout: 2_000,
    ...options,
  });
  return heard;
}

const outcome = (test: SpecTest) =>
  `${test.name}: ${test.result?.state}${test.result?.note ? ` (${test.result.note})` : ""}${
    test.result?.errors
      ? ` [${test.result.errors.map((e) => `${e.name}: ${e.message.split("\n")[0]}`).join("; ")}]`
      : ""
  }`;

describe("the spec host runs spec files as Vitest runs them", () => {
  it("runs hooks around tests in order, and records passes, failures and skips with their note", async () => {
    const path = specFile(`
      const order = [];
      beforeAll(() => { order.push("beforeAll"); });
      beforeEach(() => { order.push("beforeEach"); });
      describe("endpoint", () => {
        beforeAll(() => { order.push("inner beforeAll"); });
        it("passes", () => { order.push("test"); });
        it("fails", () => { throw Object.assign(new Error("bad answer"), { exchangeId: "x-1" }); });
        it("skips", (ctx) => ctx.skip("nothing to judge"));
        afterAll(() => { say(order.join(", ")); });
      });
    `);
    const heard = await host([path]);
    expect(heard.tests.map(outcome)).toEqual([
      "passes: pass",
      "fails: fail [Error: bad answer]",
      "skips: skip (nothing to judge)",
    ]);
    expect(heard.tests[1]?.result?.errors?.[0]?.exchangeId).toBe("x-1");
    expect(heard.said).toEqual(["beforeAll, inner beforeAll, beforeEach, test, beforeEach, beforeEach"]);
    expect(heard.files.map((f) => f.result?.state)).toEqual(["pass"]);
  });

  it("leaves a describe's tests unrun when its setup fails, and keeps the setup's error on the describe", async () => {
    const path = specFile(`
      describe("broken setup", () => {
        beforeAll(() => { throw new Error("the target refused the setup order"); });
        it("a", () => {});
        it("b", () => {});
      });
      it("elsewhere", () => {});
    `);
    const heard = await host([path]);
    expect(heard.tests.map(outcome).sort()).toEqual(["a: skip", "b: skip", "elsewhere: pass"]);
    const suite = heard.files[0]?.tasks[0];
    expect(suite?.result?.errors?.[0]?.message).toBe("the target refused the setup order");
  });

  it("fails a test that outlives its timeout, and aborts its signal", async () => {
    const path = specFile(`
      it("hangs", (ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => {
        say("aborted: " + ctx.signal.reason.message.split("\\n")[0]); resolve(undefined);
      })), 100);
      it("next", () => {});
    `);
    const heard = await host([path]);
    expect(heard.tests.map(outcome)).toEqual(["hangs: fail [Error: Test timed out in 100ms.]", "next: pass"]);
    expect(heard.said).toEqual(["aborted: Test timed out in 100ms."]);
  });

  it("runs only the tests whose full name matches the pattern, and no hook of a describe it skips whole", async () => {
    const path = specFile(`
      describe("kept", () => { it("envelope.shape › a", () => {}); it("other › b", () => {}); });
      describe("dropped", () => {
        beforeAll(() => { throw new Error("must not run"); });
        it("other › c", () => {});
      });
    `);
    const heard = await host([path], { testNamePattern: /(?:^| )envelope\.shape(?: › |$)/ });
    expect(heard.tests.map(outcome).sort()).toEqual([
      "envelope.shape › a: pass",
      "other › b: skip",
      "other › c: skip",
    ]);
    expect(heard.files[0]?.tasks[1]?.result?.errors).toBeUndefined();
  });

  it("records a file that cannot be imported as the file's error, with no test", async () => {
    const path = specFile(`throw new Error("the profile names no method for quasi-ecom");`);
    const heard = await host([path]);
    expect(heard.tests).toEqual([]);
    expect(heard.files[0]?.result?.errors?.[0]?.message).toBe("the profile names no method for quasi-ecom");
  });

  it("fails a test that declares tests inside itself, with a message that says where they go", async () => {
    const path = specFile(`it("nests", () => { it("inner", () => {}); });`);
    const heard = await host([path]);
    expect(heard.tests.map(outcome)).toEqual([
      "nests: fail [Error: it was called while the specs ran: declare tests at a spec file's top level or in a describe]",
    ]);
  });
});

describe("the spec host's lanes and runs", () => {
  it("collects each file's own tests when files that share a module with a top-level await load side by side", () => {
    // Node's own loader (Vitest's module runner evaluates differently): a module the files import
    // for the first time, whose evaluation waits, resumes the later files' evaluation from the
    // first one's import.
    const shared = join(folder, "shared.ts");
    writeFileSync(
      shared,
      "await new Promise((resolve) => setTimeout(resolve, 20));\nexport const ready = true;\n",
    );
    const paths = ["one", "two", "three"].map((name) =>
      specFile(`import { ready } from ${JSON.stringify(shared)};
describe("${name}", () => { it("${name} test", () => { if (!ready) throw new Error("not ready"); }); });`),
    );
    const script = join(folder, "host-three.ts");
    writeFileSync(join(folder, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(
      script,
      `import { hostSpecs } from ${JSON.stringify(new URL("./spec-host.ts", import.meta.url).href)};
const files = [];
await hostSpecs({ files: ${JSON.stringify(paths)}, root: ${JSON.stringify(folder)}, provided: {}, say: () => {},
  listener: { onFileEnd: (file) => files.push(file.tasks.map((task) => task.name).join(",")) },
  lanes: 3, testTimeout: 5000, hookTimeout: 5000 });
console.log(JSON.stringify(files.sort()));`,
    );
    const child = spawnSync(process.execPath, ["--import", TSX, script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual(["one", "three", "two"]);
  });

  it("keeps two runs in one process apart: each file reads its own run's values and console", async () => {
    const path = specFile(`
      const value = provided("h2hRun");
      it("reads " + value, async () => { await new Promise((r) => setTimeout(r, 30)); say(String(value)); });
    `);
    const [a, b] = await Promise.all([
      host([path], { provided: { h2hRun: "run A" } }),
      host([path], { provided: { h2hRun: "run B" } }),
    ]);
    expect(a.tests.map((t) => t.name)).toEqual(["reads run A"]);
    expect(b.tests.map((t) => t.name)).toEqual(["reads run B"]);
    expect([a.said, b.said]).toEqual([["run A"], ["run B"]]);
  });

  it("stops: the test under way is cancelled with a TestRunAbortError, the rest skipped, no file starts", async () => {
    const first = specFile(`
      it("waits", (ctx) => new Promise((_, reject) => {
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        say("waiting");
      }));
      it("after", () => {});
    `);
    const second = specFile(`it("never", () => {});`);
    const stop = new AbortController();
    // Stopped once the first test is under way.
    const say = (line: string) => line === "waiting" && stop.abort("stopped by SIGINT");
    const heard = await host([first, second], { lanes: 1, stop: stop.signal, say });
    expect(heard.tests.map(outcome)).toEqual([
      "waits: fail [TestRunAbortError: The test run was aborted by the user.]",
      "after: skip (The test run was aborted by the user.)",
    ]);
    expect(heard.files).toHaveLength(1);
  });

  it("reports an error no test caught as the run's, and goes on", async () => {
    const path = specFile(`
      it("leaves a rejection behind", () => { void Promise.reject(new Error("stray")); });
      it("later", () => new Promise((resolve) => setTimeout(resolve, 50)));
    `);
    const heard = await host([path]);
    expect(heard.tests.map(outcome)).toEqual(["leaves a rejection behind: pass", "later: pass"]);
    expect(heard.errors).toEqual(["an error no test caught while the specs ran: Error: stray"]);
  });
});

describe("certifications in one process", () => {
  it("take turns, a failed one included: the next starts when the one before ended", async () => {
    const events: string[] = [];
    const run = (name: string, fail = false) =>
      oneCertificationAtATime(async () => {
        events.push(`${name} start`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        events.push(`${name} end`);
        if (fail) throw new Error(`${name} failed`);
        return name;
      });
    const results = await Promise.allSettled([run("a", true), run("b"), run("c")]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(events).toEqual(["a start", "a end", "b start", "b end", "c start", "c end"]);
  });
});
