import { describe, expect, it } from "vitest";
import { captureStrayOutput } from "./stray-output.ts";

describe("stray console output", () => {
  it("holds what console methods and the streams were given meanwhile, and puts them back", () => {
    const log = console.log;
    const write = process.stderr.write;
    const stray = captureStrayOutput();
    try {
      console.log("a leaked", "line");
      console.error("an error line");
      process.stderr.write("raw stderr\n");
    } finally {
      stray.restore();
    }
    expect(stray.text()).toContain("a leaked line\n");
    expect(stray.text()).toContain("an error line\n");
    expect(stray.text()).toContain("raw stderr\n");
    expect(console.log).toBe(log);
    expect(process.stderr.write).toBe(write);
    console.log("after");
    expect(stray.text()).not.toContain("after");
  });
});
