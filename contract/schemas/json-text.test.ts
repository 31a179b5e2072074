import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonTextIssues, MAX_JSON_TEXT_ISSUES, scanJsonText, withoutBom } from "./json-text.ts";

const bytes = (text: string) => Buffer.from(text, "utf8");
const issuesOf = (text: string) => jsonTextIssues(bytes(text))?.issues ?? [];
const problems = (text: string) => issuesOf(text).map((i) => `${i.problem} ${i.path}`);

describe("duplicate member names", () => {
  it("are found at any depth, with the path of the repeated member", () => {
    expect(
      problems(
        '{"data":{"id":"1","amount":0,"amount":1500},"result":{"status":"error","codeError":"internal_error","codeError":"none","message":null,"status":"success"}}',
      ),
    ).toEqual([
      "duplicate-name data.amount",
      "duplicate-name result.codeError",
      "duplicate-name result.status",
    ]);
    expect(problems('{"result":{"status":"error"},"data":null,"result":{"status":"success"}}')).toEqual([
      "duplicate-name result",
    ]);
    expect(problems('{"a":[{"x":1},{"x":2,"y":[0,{"z":1,"z":2}]}]}')).toEqual(["duplicate-name a[1].y[1].z"]);
  });

  it("compare names as decoded: an escaped spelling is the same name", () => {
    expect(problems('{"status":"error","st\\u0061tus":"success"}')).toEqual(["duplicate-name status"]);
    expect(issuesOf('{"status":"error","st\\u0061tus":"success"}')[0]?.detail).toMatch(
      /member "status" twice in one object \(at characters 1 and 18\)/,
    );
  });

  it("are not the same name in sibling objects, nor a name inside a string value", () => {
    expect(problems('{"a":{"id":1},"b":{"id":2},"c":[{"id":1},{"id":2}]}')).toEqual([]);
    expect(problems('{"message":"\\"status\\":\\"x\\",\\"status\\":1","status":"error"}')).toEqual([]);
    expect(problems('{"a\\\\":1,"a":2}')).toEqual([]);
  });

  it("name an odd member name in brackets", () => {
    expect(problems('{"x-request-id":1,"x-request-id":2,"a b":{"c.d":1,"c.d":2}}')).toEqual([
      "duplicate-name x-request-id",
      'duplicate-name ["a b"]["c.d"]',
    ]);
  });
});

describe("lone surrogates", () => {
  it("are found as escapes, high or low, where a pair is not", () => {
    expect(problems('{"result":{"message":"bad \\ud800 here"}}')).toEqual(["lone-surrogate result.message"]);
    expect(problems('{"m":"\\uDC00x"}')).toEqual(["lone-surrogate m"]);
    expect(problems('{"m":"\\ud800\\u0041"}')).toEqual(["lone-surrogate m"]);
    expect(problems('{"a":["ok","\\ud800"]}')).toEqual(["lone-surrogate a[1]"]);
    expect(problems('{"\\ud800":1}')).toEqual(["lone-surrogate (body)"]);
    expect(issuesOf('{"m":"\\ud800"}')[0]?.detail).toBe("\\ud800, a high surrogate with no low one after it");
  });

  it("are not a pair, escaped or raw, nor an escaped backslash before a u", () => {
    expect(problems('{"m":"\\ud83d\\ude00","n":"😀","o":"\\\\ud800"}')).toEqual([]);
  });

  it("are found raw in a text that did not come from UTF-8", () => {
    expect(scanJsonText('{"m":"a\ud800b"}').issues.map((i) => `${i.problem} ${i.path}`)).toEqual([
      "lone-surrogate m",
    ]);
  });
});

describe("the bytes", () => {
  it("a byte order mark is named, and the text after it still scanned", () => {
    const found = jsonTextIssues(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes('{"a":1,"a":2}')]));
    expect(found?.issues.map((i) => i.problem)).toEqual(["byte-order-mark", "duplicate-name"]);
  });

  it("each ill-formed UTF-8 sequence is named with its offset and bytes", () => {
    const body = Buffer.concat([
      bytes('{"m":"'),
      Buffer.from([0xff]),
      bytes("a"),
      Buffer.from([0xc0, 0x80]),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from([0xe2, 0x82]),
      bytes('"}'),
    ]);
    expect(jsonTextIssues(body)?.issues.map((i) => i.detail)).toEqual([
      "byte FF at byte 6 is not UTF-8",
      "byte C0 at byte 8 is not UTF-8",
      "byte 80 at byte 9 is not UTF-8",
      "byte ED at byte 10 is not UTF-8",
      "byte A0 at byte 11 is not UTF-8",
      "byte 80 at byte 12 is not UTF-8",
      "bytes E2 82 at byte 13 are not UTF-8",
    ]);
  });

  it("a clean body has no issues, and neither has text that is not JSON (another check's finding)", () => {
    expect(
      jsonTextIssues(bytes('{"data":{"a":[1,2.5e3,true,null,"é😀"]},"result":{"status":"success"}}')),
    ).toBe(undefined);
    for (const junk of ['{"a":', '{"a":"unterminated', "<html>", "", "]]]}}}", '{"a" "b"}'])
      expect(() => jsonTextIssues(bytes(junk))).not.toThrow();
  });

  it("keeps the first issues and counts the rest", () => {
    const many = `{${Array.from({ length: 25 }, () => '"a":1').join(",")}}`;
    const found = jsonTextIssues(bytes(many));
    expect(found?.issues).toHaveLength(MAX_JSON_TEXT_ISSUES);
    expect(found?.more).toBe(24 - MAX_JSON_TEXT_ISSUES);
  });

  it("withoutBom leaves a text for JSON.parse", () => {
    expect(JSON.parse(withoutBom('\ufeff{"a":1}'))).toEqual({ a: 1 });
    expect(withoutBom('{"a":1}')).toBe('{"a":1}');
  });
});

describe("cost", () => {
  it("grows with the body, not with its square: one string of 200,000 escapes, 200,000 lone halves", () => {
    // CPU time, not wall time: a loaded machine does not slow it; one pass per escape took seconds.
    for (const body of [
      JSON.stringify({ a: "\u0001".repeat(200_000) }),
      `{"a":"${"\\ud800".repeat(200_000)}"}`,
    ]) {
      const before = process.cpuUsage();
      jsonTextIssues(bytes(body));
      const used = process.cpuUsage(before);
      expect((used.user + used.system) / 1000).toBeLessThan(1_000);
    }
  });
});

describe("against JSON.stringify", () => {
  it("finds nothing in any value it writes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonTextIssues(bytes(JSON.stringify(value) ?? "null"))).toBe(undefined);
      }),
      { numRuns: 300 },
    );
  });

  it("finds a member written twice wherever it is put", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.nat(), (object, pick) => {
        const names = Object.keys(object);
        const name = names[pick % names.length] as string;
        const text = JSON.stringify(object);
        const decoy = `{${JSON.stringify(name)}:"decoy",${text.slice(1)}`;
        expect(jsonTextIssues(bytes(decoy))?.issues[0]?.problem).toBe("duplicate-name");
      }),
      { numRuns: 300 },
    );
  });
});
