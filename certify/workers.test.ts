/**
 * H2H_WORKERS, how many of a run's spec files run side by side. (The other variables are tested as
 * a user meets them, through certify: preflight.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { parseSettings, SettingsError } from "../run-setup/index.ts";
import { MAX_WORKERS, SPEC_LANES, workersOf } from "./engine/spec-runner.ts";

const settingsWith = (workers: string | undefined) =>
  parseSettings(workers === undefined ? {} : { H2H_WORKERS: workers }, { command: "certify", cwd: "/" });

describe("H2H_WORKERS", () => {
  it("sets the spec files a whole run keeps side by side; --only keeps to one; unset, four", () => {
    expect(settingsWith("1").workers).toBe(1);
    expect(settingsWith(" 3 ").workers).toBe(3);
    expect(settingsWith(undefined).workers).toBeUndefined();
    expect(workersOf({ workers: 1 })).toBe(1);
    expect(workersOf({ workers: 3 })).toBe(3);
    expect(workersOf({ workers: 3, testNamePattern: /x/ })).toBe(1);
    expect(workersOf({})).toBe(SPEC_LANES);
    expect(SPEC_LANES).toBe(4);
  });

  it.each(["0", "2.5", "many", String(MAX_WORKERS + 1), "-1", "0x10", "1e1"])(
    "refuses %j, naming the variable and the fix",
    (value) => {
      expect(() => settingsWith(value)).toThrow(SettingsError);
      expect(() => settingsWith(value)).toThrow(
        `H2H_WORKERS "${value}" is not a number of spec files to run side by side (1-${MAX_WORKERS}): give one, or unset it for the default`,
      );
    },
  );

  it("refuses it set but blank", () => {
    expect(() => settingsWith("  ")).toThrow("H2H_WORKERS is set but empty");
  });
});
