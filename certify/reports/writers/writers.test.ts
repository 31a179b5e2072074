/**
 * The registered writers stream what the whole-string renderers wrote, byte for byte, masked as
 * before: a recorded run (a real certify run against the reference provider with two faults,
 * trimmed, with raw secrets put back in) gives the same four files, whose SHA-256 were taken from
 * the whole-string renderers. A secret where one piece ends and the next begins is masked all the
 * same, and each report is read by what reads it: JSON.parse, and xmllint with junit-10.xsd.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RecordedExchange } from "../../../contract/index.ts";
import { createMasker } from "../../../contract/kit/index.ts";
import { validateJunit10, xmllintPath } from "../../../fixtures/testing/junit-schema.ts";
import { analyseRun } from "../../analysis/index.ts";
import type { CheckRecord, RunReport } from "../../engine/run-model.ts";
import { runReportOf } from "../../testing/run-report.ts";
import { REPORT_FILES, type ReportKind, writeReports } from "../index.ts";
import { maskChunk, REPORT_WRITERS } from "./index.ts";
import { JsonArrayStream, jsonChunks } from "./json-chunks.ts";

const recorded = JSON.parse(
  readFileSync(new URL("./recorded-run.json", import.meta.url), "utf8"),
) as RunReport;
const recordedMasker = createMasker({ secrets: ["sandbox-key-merchant-1", "sandbox-callback-secret"] });

/** SHA-256 of each report the whole-string renderers wrote for the recorded run (masked as above). */
const WHOLE_STRING_SHA256: Record<ReportKind, string> = {
  json: "f524fb9c10af4516ef387c3765bfc6e7e8c9bc06bffbc1e3d647a6ad17ce2df6",
  junit: "e9dcb39c69a00e89a8f0674c25150539370ae6a3ff53e3c26f2e40bb8757985e",
  html: "2d8a06fb909951c1a4e29d09b4c5f7c98bc62a099df9d2e2e35e75dc721aa90b",
  har: "2a2dcd130bc83c69dd408dad0312f26a6bda8cc4a30bb7df8d8f4e6a95dfcad8",
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function writtenSet(report: RunReport, secrets: string[]): Promise<Record<ReportKind, string>> {
  const dir = mkdtempSync(join(tmpdir(), "h2h-writers-"));
  dirs.push(dir);
  await writeReports(report, dir, secrets.length === 0 ? recordedMasker : createMasker({ secrets }));
  const read = (kind: ReportKind) => readFileSync(join(dir, REPORT_FILES[kind]), "utf8");
  return { json: read("json"), junit: read("junit"), html: read("html"), har: read("har") };
}

describe("the streamed reports of a recorded run", () => {
  it("are byte for byte what the whole-string renderers wrote", async () => {
    const set = await writtenSet(recorded, []);
    for (const kind of Object.keys(WHOLE_STRING_SHA256) as ReportKind[])
      expect(createHash("sha256").update(set[kind]).digest("hex"), kind).toBe(WHOLE_STRING_SHA256[kind]);
    // The secrets the recorded run was given back are masked, as they were.
    for (const text of Object.values(set)) {
      expect(text).not.toContain("sandbox-key-merchant-1");
      expect(text).not.toContain("4111111111111111");
    }
  });

  it("are read by their consumers: JSON.parse, and xmllint against junit-10.xsd", async () => {
    const set = await writtenSet(recorded, []);
    expect(JSON.parse(set.json).runId).toBe(recorded.runId);
    const har = JSON.parse(set.har) as { log: { entries: unknown[] } };
    expect(har.log.entries).toHaveLength(recorded.exchanges.length + recorded.callbacks.length);
    expect(set.html.endsWith("</main></body></html>\n")).toBe(true);
    if (xmllintPath()) expect(validateJunit10(set.junit)).toEqual({ valid: true, errors: "" });
  });
});

describe("the HTML report's header", () => {
  it("names the profile by its path when the run read one, and by its name alone when not", async () => {
    const named = (profilePath: string) => ({ ...recorded, target: { ...recorded.target, profilePath } });
    const withPath = (await writtenSet(named("/p/reference.json"), [])).html;
    expect(withPath).toContain("</code> (/p/reference.json) · run");
    const noPath = (await writtenSet(named(""), [])).html;
    expect(noPath).toMatch(/profile <code>[^<]+<\/code> · run/);
    expect(noPath).not.toContain("() · run");
  });
});

describe("JSON in pieces", () => {
  const awkward = {
    a: undefined,
    b: [],
    c: {},
    d: [1, undefined, () => 1, [2, [3, {}]], { e: undefined, f: 'é\u2028"\\' }],
    g: { toJSON: (key: string) => `toJSON of ${key}` },
    h: null,
    i: [{ j: [{ k: [] }] }],
    l: new Date(0),
  };
  it.each([0, 1, 2, 3, 5])("is JSON.stringify(value, null, 2) at depth %i", (depth) => {
    const text = [...jsonChunks(awkward, depth)]
      .map((chunk) => (typeof chunk === "string" ? chunk : chunk.json))
      .join("");
    expect(text).toBe(`${JSON.stringify(awkward, null, 2)}\n`);
  });

  it("writes a stream of elements as the array of them", () => {
    const made: number[] = [];
    const stream = new JsonArrayStream(function* () {
      for (const n of [1, 2, 3]) {
        made.push(n);
        yield { n };
      }
    });
    const text = [...jsonChunks({ list: stream }, 2)]
      .map((chunk) => (typeof chunk === "string" ? chunk : chunk.json))
      .join("");
    expect(text).toBe(`${JSON.stringify({ list: [{ n: 1 }, { n: 2 }, { n: 3 }] }, null, 2)}\n`);
    expect(made).toEqual([1, 2, 3]);
  });
});

describe("a JSON piece masked on its own", () => {
  it("is masked as in its whole document: a credential field's elements, a card under requisites", () => {
    const masker = createMasker({ secrets: [] });
    // Masked by where they stand only: no secret, no card pattern names them.
    const document = {
      apiKey: ["opaque-value-1"],
      requisites: [{ number: "12 34" }],
      nested: { secret: [["v"]] },
    };
    for (const depth of [1, 2, 3, 4]) {
      const pieces = [...jsonChunks(document, depth)].map((chunk) => maskChunk(masker, chunk, "json"));
      expect(pieces.join(""), `depth ${depth}`).toBe(masker.text(`${JSON.stringify(document, null, 2)}\n`));
    }
    expect(masker.text(JSON.stringify(document))).not.toContain("opaque-value-1");
  });

  it("masks its value as its text would be masked, whatever the value holds", () => {
    const SECRET = "piece-secret-91c3";
    const CARD = "4111111111111111";
    const masker = createMasker({ secrets: [SECRET], cardNumbers: [CARD] });
    const body = JSON.stringify({ card: { number: CARD }, cvc: "123", note: `x ${SECRET}` });
    // Parsed, so that `__proto__` is a key of its own, as a provider's JSON may have it.
    const parsed = JSON.parse(`{"__proto__": {"cvv": 987}, "k": "${SECRET}"}`) as unknown;
    const documents: unknown[] = [
      {
        exchanges: [
          {
            request: { body, headers: { authorization: `Bearer ${SECRET}`, cvc: "321" } },
            pan: Number(CARD),
          },
          {
            requisites: { number: `${CARD.slice(0, 4)} ${CARD.slice(4)}` },
            amounts: [1.5, Number.NaN, -0],
            security_code: Number.NaN,
          },
        ],
        [SECRET]: { nested: [[SECRET], { cvc2: 42 }] },
        clean: { a: [1, "two", null, true], b: {} },
      },
      {
        parsed,
        when: new Date(0),
        boxed: [new String(SECRET), new Number(7)],
        hole: new Array<number>(3).fill(1, 0, 1),
      },
      // Two keys that mask to one: the text keeps both, so the text is what is masked.
      { x: { [SECRET]: 1, "***": 2 } },
      [SECRET, { url: `https://user:${SECRET}@example.test/callbacks/abcdefghijklmnopqrstu` }],
      SECRET,
    ];
    for (const document of documents)
      for (const depth of [0, 1, 2, 3, 4]) {
        const pieces = [...jsonChunks(document, depth)];
        const masked = pieces.map((chunk) => maskChunk(masker, chunk, "json")).join("");
        expect(masked, `depth ${depth}`).toBe(masker.text(`${JSON.stringify(document, null, 2)}\n`));
        expect(masked).not.toContain(SECRET);
        expect(masked).not.toContain(CARD.slice(0, 12));
      }
    // A piece masking leaves as it is comes back as the text it was written as.
    const [clean] = [...jsonChunks({ clean: { a: [1, "two"] } }, 1)].filter((c) => typeof c !== "string");
    if (clean === undefined || typeof clean === "string") throw new Error("no piece");
    expect(maskChunk(masker, clean, "json")).toBe(clean.json);
  });
});

describe("a secret where one piece of a report ends and the next begins", () => {
  const SECRET = "boundary-secret-4f9a";
  const exchange = (n: number, body: string): RecordedExchange => ({
    id: `lifecycle-${n}`,
    source: "lifecycle",
    operation: "createMobileCommerceOrder",
    startedAt: `2026-01-01T00:00:0${n}.000Z`,
    durationMs: 3,
    request: { method: "POST", url: "http://127.0.0.1:8080/api/v1/orders", headers: {}, body },
    response: { status: 200, headers: {}, body, json: undefined },
  });
  const check = (detail: string, exchanges: string[]): CheckRecord => ({
    endpoint: "createMobileCommerceOrder",
    check: "envelope.shape",
    rule: "r",
    status: "failed",
    required: true,
    detail,
    durationMs: 1,
    exchanges,
    source: "lifecycle",
  });
  // Each exchange ends with the secret (a HAR entry with its comment, naming the operation), the
  // next begins with it; each failure too (a JUnit testcase with its name).
  const report = runReportOf(
    [
      { ...check(`${SECRET} first`, ["lifecycle-1"]), case: SECRET },
      check(`second ${SECRET}`, ["lifecycle-2"]),
    ],
    {
      exchanges: [
        exchange(1, `{"a":"x ${SECRET}"}`),
        { ...exchange(2, `${SECRET} y`), operation: SECRET as RecordedExchange["operation"] },
      ],
    },
  );

  it("sits at a piece's edge in every writer", () => {
    const run = { report, analysis: analyseRun(report) };
    for (const writer of REPORT_WRITERS) {
      const pieces = [...writer.chunks(run)].map((chunk) => (typeof chunk === "string" ? chunk : chunk.json));
      const edges: number[] = [];
      let offset = 0;
      for (const piece of pieces) {
        offset += piece.length;
        edges.push(offset);
      }
      const text = pieces.join("");
      const secrets = [...text.matchAll(/boundary-secret-4f9a/g)].map((m) => m.index);
      // An edge within a tag's length of a secret, before or after it: a cut there, by bytes, could split it.
      const nearEdge = secrets.some((at) =>
        edges.some((edge) => edge >= at - 100 && edge <= at + SECRET.length + 100),
      );
      expect(nearEdge, writer.kind).toBe(true);
    }
  });

  it("is masked in every report", async () => {
    const set = await writtenSet(report, [SECRET]);
    for (const [kind, text] of Object.entries(set)) {
      expect(text, kind).not.toContain(SECRET);
      expect(text, kind).not.toContain("4f9a");
    }
  });
});
