import { describe, expect, it } from "vitest";
import { shownPath } from "./console-summary.ts";

describe("shownPath (where certify says the reports are)", () => {
  it("is relative below the working folder", () => {
    expect(shownPath("/work/repo", "/work/repo/reports/h2h-certify.html")).toBe("reports/h2h-certify.html");
  });

  it("is absolute outside it, not a climb of ../", () => {
    expect(shownPath("/work/repo", "/tmp/rep1/h2h-certify.html")).toBe("/tmp/rep1/h2h-certify.html");
    expect(shownPath("/work/repo", "/work/repo-other/r.json")).toBe("/work/repo-other/r.json");
  });

  it("keeps a name that merely starts with two dots, below the folder", () => {
    expect(shownPath("/work/repo", "/work/repo/..reports/r.json")).toBe("..reports/r.json");
  });
});
