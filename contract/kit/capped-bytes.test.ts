import { describe, expect, it } from "vitest";
import { CappedBytes } from "./capped-bytes.ts";

describe("CappedBytes", () => {
  it("keeps a chunk that ends at the cap whole, and is not full", () => {
    const kept = new CappedBytes(4);
    expect(kept.add(Buffer.from("ab"))).toBe(true);
    expect(kept.add(Buffer.from("cd"))).toBe(true);
    expect([kept.bytes().toString(), kept.length, kept.full]).toEqual(["abcd", 4, false]);
  });

  it("cuts the chunk that crosses the cap, and says it is full", () => {
    const kept = new CappedBytes(3);
    kept.add(Buffer.from("ab"));
    expect(kept.add(Buffer.from("cde"))).toBe(false);
    expect([kept.bytes().toString(), kept.length, kept.full]).toEqual(["abc", 3, true]);
  });
});
