import { describe, expect, it } from "vitest";
import { parseSettings, SettingsError } from "../../target/index.ts";
import {
  describeProbeSettings,
  MAX_SEED,
  onlyPattern,
  readProbeSettings as probesOf,
  rerunCommand,
} from "./probe-settings.ts";

/** The probes' settings as certify reads them: the environment and the flags, parsed once. */
function readProbeSettings(
  env: Record<string, string>,
  flags: { seed?: number; depth?: string; only?: string[] } = {},
) {
  const { only, ...given } = flags;
  return probesOf(parseSettings(env, { command: "certify", cwd: "/", flags: given }), { only });
}

describe("the probes' settings", () => {
  it("takes --seed over H2H_SEED, and draws one (said so) when neither is given", () => {
    expect(readProbeSettings({ H2H_SEED: "7" }, { seed: 42 })).toMatchObject({
      seed: 42,
      seedSource: "--seed",
    });
    expect(readProbeSettings({ H2H_SEED: " 7 " })).toMatchObject({ seed: 7, seedSource: "H2H_SEED" });
    const drawn = readProbeSettings({});
    expect(drawn.seedSource).toBe("random");
    expect(Number.isInteger(drawn.seed) && drawn.seed >= 0 && drawn.seed <= MAX_SEED).toBe(true);
    expect(describeProbeSettings(drawn)).toContain(
      `--seed ${drawn.seed} or H2H_SEED=${drawn.seed} sends the same requests`,
    );
  });

  it("takes --depth over H2H_DEPTH, quick by default", () => {
    expect(readProbeSettings({}).depth).toBe("quick");
    expect(readProbeSettings({ H2H_DEPTH: "Thorough" }).depth).toBe("thorough");
    expect(readProbeSettings({ H2H_DEPTH: "thorough" }, { depth: "quick" }).depth).toBe("quick");
  });

  it("gives every run its own merchantOrderID prefix", () => {
    const a = readProbeSettings({ H2H_SEED: "1" });
    const b = readProbeSettings({ H2H_SEED: "1" });
    expect(a.merchantOrderIdPrefix).toMatch(/^h2h-[0-9a-f]{6}$/);
    expect(a.merchantOrderIdPrefix).not.toBe(b.merchantOrderIdPrefix);
  });

  it.each([
    [{ H2H_SEED: "abc" }, {}, 'H2H_SEED "abc" is not a seed: an integer from 0 to 2147483647'],
    [{ H2H_SEED: "0x10" }, {}, 'H2H_SEED "0x10" is not a seed'],
    [{ H2H_SEED: "1e3" }, {}, 'H2H_SEED "1e3" is not a seed'],
    [{}, { seed: -1 }, '--seed "-1" is not a seed'],
    [{}, { seed: 1.5 }, '--seed "1.5" is not a seed'],
    [{ H2H_DEPTH: "deep" }, {}, 'H2H_DEPTH "deep" is not a depth: one of quick, thorough'],
    [
      {},
      { only: ["semantics.amount-echo"] },
      "--only semantics.amount-echo: no check has this name (checks of semantics:",
    ],
  ])("refuses %o %o, naming the setting", (env, overrides, message) => {
    expect(() => readProbeSettings(env, overrides)).toThrow(SettingsError);
    expect(() => readProbeSettings(env, overrides)).toThrow(message);
  });

  it("--only matches a check's tests by title, alone or with a case, and nothing else", () => {
    const pattern = onlyPattern(["semantics.amount-echoed"]) as RegExp;
    expect(
      pattern.test("createMobileCommerceOrder semantics.amount-echoed › method 101, 6 generated orders"),
    ).toBe(true);
    expect(pattern.test("createMobileCommerceOrder semantics.amount-echoed")).toBe(true);
    expect(pattern.test("createMobileCommerceOrder semantics.amount-echoedx")).toBe(false);
    expect(pattern.test("createMobileCommerceOrder semantics-amount-echoed")).toBe(false);
    expect(onlyPattern([])).toBeUndefined();
    expect(rerunCommand(9, "callbacks.exact-url")).toBe(
      "npm run certify -- --seed 9 --only callbacks.exact-url",
    );
  });
});
