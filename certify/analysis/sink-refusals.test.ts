import { describe, expect, it } from "vitest";
import { publicUrlOf } from "../reports/callback-evidence.ts";
import { sinkRefusalsOf } from "./sink-refusals.ts";

describe("what the webhook sink refused, in the run's report", () => {
  it("makes callbacks the sink could not store or route an error of the run, naming the reasons", () => {
    const { error, warning } = sinkRefusalsOf({ "not-stored": 3, "callback-prefix": 2, "body-too-large": 1 });
    expect(error).toMatch(/refused 5 callback\(s\) for reasons of this run, not of the provider/);
    expect(error).toContain("3 not-stored, 2 callback-prefix");
    expect(error).toContain("H2H_SINK_PUBLIC_URL");
    expect(error).toContain("not-stored: the sink could not write them to its disk");
    expect(sinkRefusalsOf({ "callback-prefix": 1 }).error).not.toContain("not-stored");
    expect(warning).toBe(
      "the webhook sink refused 1 request(s) it could not take as callbacks (1 body-too-large)",
    );
  });

  it("says nothing when the sink refused nothing", () => {
    expect(sinkRefusalsOf({})).toEqual({});
  });
});

describe("a callback's URL in the evidence", () => {
  it("does not repeat the public URL's path when the tunnel forwarded it", () => {
    expect(publicUrlOf("https://tunnel.example/abc/", "/abc/callbacks/<token>/run/x")).toBe(
      "https://tunnel.example/abc/callbacks/<token>/run/x",
    );
    expect(publicUrlOf("https://tunnel.example/abc", "/callbacks/<token>")).toBe(
      "https://tunnel.example/abc/callbacks/<token>",
    );
    expect(publicUrlOf("http://127.0.0.1:9", "/callbacks/<token>?q=1")).toBe(
      "http://127.0.0.1:9/callbacks/<token>?q=1",
    );
  });
});
