import { describe, expect, test } from "vitest";
import { childrenCpuMs } from "./certify-bench.ts";

describe("the certify bench's CPU figure", () => {
  test("is the children's user + system time from bash's times", () => {
    expect(childrenCpuMs("0m0.004s 0m0.001s\n0m10.690s 1m1.581s\n")).toBe(10_690 + 61_581);
  });

  test("refuses output without the children's line", () => {
    expect(() => childrenCpuMs("0m0.004s 0m0.001s\n")).toThrow(/no children's line/);
  });
});
