import { describe, expect, it } from "vitest";
import {
  boundedJson,
  cutToSerialisedBytes,
  jsonBytes,
  MAX_JSON_DEPTH,
  serialisedBytes,
  withinDepth,
} from "./json-size.ts";

const written = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;

describe("serialised size", () => {
  it("counts what JSON.stringify writes: escapes, quotes, UTF-8, surrogate pairs and lone halves", () => {
    for (const text of [
      "plain",
      "\u0001\u0000\u001f",
      "\n\t\r\b\f",
      '"\\',
      "é€𝄞",
      "\ud800x\udc00",
      "a\ud834",
    ]) {
      expect(serialisedBytes(text), JSON.stringify(text)).toBe(written(text));
    }
  });

  it("cuts control bytes by what they take as written, not by characters", () => {
    const text = "\u0001".repeat(64 * 1024);
    const cut = cutToSerialisedBytes(text, 64 * 1024);
    expect(written(cut.text)).toBeLessThanOrEqual(64 * 1024);
    expect(cut.text.length).toBe(Math.floor((64 * 1024) / 6));
    expect(cut.cutFrom).toBe(6 * 64 * 1024);
  });

  it("never splits a surrogate pair, and leaves a text that fits whole", () => {
    const cut = cutToSerialisedBytes("ab𝄞", 5);
    expect(cut.text).toBe("ab");
    expect(cutToSerialisedBytes("short", 100)).toEqual({ text: "short" });
  });

  it("keeps a parsed answer's shape when its strings are too long, and drops it when even that is", () => {
    const answer = { result: { codeError: "0" }, data: { pad: "\u0001".repeat(10_000) } };
    const bounded = boundedJson(answer, 4096) as typeof answer;
    expect(bounded.result).toEqual({ codeError: "0" });
    expect(jsonBytes(bounded)).toBeLessThanOrEqual(4096);
    expect(boundedJson(answer, 10)).toBeUndefined();
    expect(boundedJson({ a: 1 }, 100)).toEqual({ a: 1 });
  });

  it("bounds an answer nested 10,000 deep, which JSON.stringify and structuredClone cannot take", () => {
    const deep = JSON.parse(`${"[".repeat(10_000)}${"]".repeat(10_000)}`);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const bounded = withinDepth(deep);
    expect(JSON.stringify(bounded)).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(() => structuredClone(bounded)).not.toThrow();
    const shallow = { result: { codeError: "0" } };
    expect(withinDepth(shallow)).toBe(shallow);
  });

  it("measures a parsed answer as the JSON report writes it: pretty-printed and indented", () => {
    const zeros = JSON.parse(`[${"0,".repeat(10_000)}0]`);
    expect(jsonBytes(zeros)).toBeGreaterThan(5 * Buffer.byteLength(JSON.stringify(zeros)));
    const envelope = { result: { codeError: "0" }, data: zeros };
    const bounded = boundedJson(envelope, 64 * 1024) as { result: unknown; data: unknown[] };
    expect(bounded.result).toEqual({ codeError: "0" });
    expect(bounded.data.at(-1)).toBe("… (9969 more items)");
    expect(jsonBytes(bounded)).toBeLessThanOrEqual(64 * 1024);
  });
});
