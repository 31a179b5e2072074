import { describe, expect, it } from "vitest";
import { neutralToken, requestTargetOf } from "./probes.ts";

describe("a callback URL given and a path received compare", () => {
  it("whether a tunnel forwarded the public URL's path or stripped it", () => {
    const given = requestTargetOf("https://tunnel.example/abc/callbacks/TOKEN123/run/r-1/?q=1");
    expect(given).toBe("/callbacks/<token>/run/r-1/?q=1");
    expect(neutralToken("/abc/callbacks/TOKEN123/run/r-1/?q=1")).toBe(given);
    expect(neutralToken("/callbacks/TOKEN123/run/r-1/?q=1")).toBe(given);
    // What the provider changed still shows: the trailing slash and the query.
    expect(neutralToken("/abc/callbacks/TOKEN123/run/r-1")).not.toBe(given);
  });
});
