import { describe, expect, it } from "vitest";
import { type BundledProfile, parseLoadConfig } from "./config.ts";
import { buildOptions, buildScenario, durationSeconds } from "./scenarios.ts";

const profile: BundledProfile = {
  methods: {
    mobile_commerce: { methodID: 101, amount: 1500, requires: { clientID: false, clientMetadata: [] } },
    quasi_ecom: { methodID: 201, amount: 2500.5, requires: { clientID: false, clientMetadata: [] } },
  },
  codes: { succeeded: "1111", failed_by_terminal: "2222", succeeded_by_appeal: "3333" },
  expectedStatus: {
    createMobileCommerceOrder: "payment_pending",
    confirmMobileCommerceOrder: "waiting_for_terminal",
    createQuasiEcomOrder: "created",
    confirmQuasiEcomOrder: "created",
  },
  requestTimeoutMs: 5000,
};
const env = { H2H_BASE_URL: "http://127.0.0.1:8080/", H2H_API_KEY: "k", H2H_RUN_ID: "run-1" };

describe("load config", () => {
  it("reads the environment with defaults", () => {
    expect(parseLoadConfig(env, profile)).toMatchObject({
      baseUrl: "http://127.0.0.1:8080",
      scenario: "smoke",
      duration: "30s",
      rate: 10,
      mobileShare: 0.5,
      failureShare: 0,
      appealShare: 0,
      callbackUrl: undefined,
    });
    expect(parseLoadConfig({ ...env, H2H_SCENARIO: "soak" }, profile).duration).toBe("30m");
  });

  it.each([
    [{ H2H_BASE_URL: "localhost:8080" }, /H2H_BASE_URL="localhost:8080": must be an http\(s\) URL/],
    [{ H2H_API_KEY: "" }, /H2H_API_KEY is not set/],
    [{ H2H_SCENARIO: "burst" }, /H2H_SCENARIO="burst": must be one of smoke, load, stress, spike, soak/],
    [{ H2H_RATE: "-3" }, /H2H_RATE="-3"/],
    [{ H2H_DURATION: "10 minutes" }, /H2H_DURATION="10 minutes"/],
    [{ H2H_FAILURE_SHARE: "0.7", H2H_APPEAL_SHARE: "0.5" }, /must not exceed 1/],
    [{ H2H_MOBILE_SHARE: "2" }, /H2H_MOBILE_SHARE="2": must be a share between 0 and 1/],
    [{ H2H_RUN_ID: "run id with spaces" }, /H2H_RUN_ID/],
    [{ H2H_MAX_VUS: "2.5" }, /H2H_MAX_VUS="2.5"/],
  ])("refuses %j, naming the variable", (change, message) => {
    expect(() => parseLoadConfig({ ...env, ...change }, profile)).toThrow(message);
  });

  it("refuses a failure share when the profile has no failure code", () => {
    const noCodes = { ...profile, codes: { succeeded: "1111" } };
    expect(() => parseLoadConfig({ ...env, H2H_FAILURE_SHARE: "0.1" }, noCodes)).toThrow(
      /no code for failed_by_terminal/,
    );
  });
});

describe("load scenarios", () => {
  const config = (scenario: string, extra: Record<string, string> = {}) =>
    parseLoadConfig(
      { ...env, H2H_SCENARIO: scenario, H2H_RATE: "20", H2H_DURATION: "2m", ...extra },
      profile,
    );

  it("smoke: 1-2 VUs for about 30 s", () => {
    expect(buildScenario(parseLoadConfig(env, profile))).toEqual({
      executor: "constant-vus",
      vus: 2,
      duration: "30s",
    });
  });

  it("load and soak: an arrival-rate plateau", () => {
    expect(buildScenario(config("load"))).toMatchObject({
      executor: "constant-arrival-rate",
      rate: 20,
      duration: "2m",
      maxVUs: 100,
    });
  });

  it("stress: ramps past the target rate", () => {
    const stress = buildScenario(config("stress")) as { stages: { target: number }[] };
    expect(Math.max(...stress.stages.map((s) => s.target))).toBe(60);
    expect(stress.stages[0]?.target).toBe(20);
  });

  it("spike: a sudden jump to five times the target and back", () => {
    const spike = buildScenario(config("spike")) as { stages: { target: number; duration: string }[] };
    expect(spike.stages.map((s) => s.target)).toEqual([5, 100, 100, 5, 5]);
    expect(spike.stages.reduce((sum, s) => sum + durationSeconds(s.duration), 0)).toBeCloseTo(120, -1);
  });

  it("caps VUs at H2H_MAX_VUS", () => {
    expect(buildScenario(config("stress", { H2H_MAX_VUS: "7" }))).toMatchObject({
      preAllocatedVUs: 7,
      maxVUs: 7,
    });
  });

  it("sets thresholds per endpoint on the name tag, only for the endpoints the script uses", () => {
    const options = buildOptions(config("load", { H2H_P95_MS: "250" }), ["quasi_ecom"]);
    expect(options.thresholds).toEqual({
      http_req_failed: ["rate<0.01"],
      checks: ["rate>0.99"],
      "http_req_duration{name:createQuasiEcomOrder}": ["p(95)<250"],
      "http_req_duration{name:confirmQuasiEcomOrder}": ["p(95)<250"],
    });
  });

  it("reads k6 durations", () => {
    expect(durationSeconds("1h30m")).toBe(5400);
    expect(durationSeconds("45s")).toBe(45);
    expect(durationSeconds("500ms")).toBe(0.5);
  });
});
