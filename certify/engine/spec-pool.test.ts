import { describe, expect, test } from "vitest";
import { CALLBACK_SPEC_FILE } from "./run-timings.ts";
import { SPEC_GLOB, specFileName } from "./spec-pool.ts";

describe("the spec files, run from the checkout or the compiled package", () => {
  test("a compiled spec is named by its source, as the reports and the phases name it", () => {
    expect(specFileName("/app/node_modules/h2h-certify/dist/certify/specs/callbacks.spec.js")).toBe(
      CALLBACK_SPEC_FILE,
    );
    expect(specFileName("/repo/certify/specs/callbacks.spec.ts")).toBe(CALLBACK_SPEC_FILE);
  });

  test("a checkout finds the TypeScript specs", () => {
    expect(SPEC_GLOB).toBe("certify/specs/**/*.spec.ts");
  });
});
