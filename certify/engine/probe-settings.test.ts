import { describe, expect, it } from "vitest";
import { parseSettings, SettingsError } from "../../run-setup/index.ts";
import {
  describeProbeSettings,
  MAX_SEED,
  onlyPattern,
  readProbeSettings as probesOf,
  rerunBaseOf,
  rerunCommand,
  shellQuoted,
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
    expect(rerunCommand(undefined, 9, "callbacks.exact-url")).toBe(
      "npm run certify -- --seed 9 --only callbacks.exact-url",
    );
  });
});

describe("the command that re-runs a failed check", () => {
  const settingsOf = (env: Record<string, string>, flags: Record<string, string> = {}) =>
    parseSettings(env, { command: "certify", cwd: "/work/merchant", flags });

  it("names the target, the profile and every setting given, secrets by their variable, reports apart", () => {
    const base = rerunBaseOf(
      settingsOf(
        {
          H2H_BASE_URL: "http://127.0.0.1:18081/h2h",
          H2H_API_KEY: "live-secret-key-0001",
          H2H_API_KEY_2: "live-secret-key-0002",
          H2H_CALLBACK_SECRET: "whsec-value",
          H2H_PROFILE: "profiles/my provider.json",
          H2H_REPORT_DIR: "out",
          H2H_WORKERS: "1",
        },
        { depth: "thorough", seed: "7" },
      ),
    );
    const command = rerunCommand(base, 7, "behaviour.rejects-wrong-code");
    expect(command).toBe(
      [
        "H2H_BASE_URL=http://127.0.0.1:18081/h2h",
        'H2H_API_KEY="$H2H_API_KEY"',
        'H2H_API_KEY_2="$H2H_API_KEY_2"',
        'H2H_CALLBACK_SECRET="$H2H_CALLBACK_SECRET"',
        "H2H_PROFILE='/work/merchant/profiles/my provider.json'",
        "H2H_DEPTH=thorough",
        "H2H_REPORT_DIR=/work/merchant/out/rerun-behaviour.rejects-wrong-code-seed7",
        "npm run certify -- --seed 7 --only behaviour.rejects-wrong-code",
      ].join(" "),
    );
    for (const secret of ["live-secret-key-0001", "live-secret-key-0002", "whsec-value"])
      expect(command).not.toContain(secret);
  });

  it("repeats nothing for the bundled provider with its defaults but the seed, the check and the folder", () => {
    expect(rerunCommand(rerunBaseOf(settingsOf({})), 3, "semantics.usdt-amount")).toMatch(
      /^H2H_REPORT_DIR=\S+\/reports\/rerun-semantics\.usdt-amount-seed3 npm run certify -- --seed 3 --only semantics\.usdt-amount$/,
    );
  });

  it("repeats a setting as it was written, not as parsed (a container's readiness)", () => {
    const base = rerunBaseOf(
      settingsOf({ H2H_TARGET_IMAGE: "acme/sandbox:1.2", H2H_TARGET_READY: "log:ready to serve" }),
    );
    expect(base.assignments).toBe("H2H_TARGET_IMAGE=acme/sandbox:1.2 H2H_TARGET_READY='log:ready to serve' ");
  });

  it("quotes a value so that a shell reads it back as it was", () => {
    expect(shellQuoted("plain/path-1.json")).toBe("plain/path-1.json");
    expect(shellQuoted("it's $HOME")).toBe("'it'\\''s $HOME'");
  });
});
