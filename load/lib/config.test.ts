import { describe, expect, it } from "vitest";
import { parseSetting, SETTINGS } from "../../run-setup/index.ts";
import { SCENARIO_NAMES } from "../scenarios/index.ts";
import { type BundledProfile, parseLoadConfig } from "./config.ts";
import {
  buildOptions,
  buildScenario,
  describeScenario,
  durationSeconds,
  isBookkeeping,
  settledStepAt,
  stressSteps,
} from "./scenarios.ts";

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
      rate: 1.5,
      thinkSeconds: 1,
      mobileShare: 0.5,
      failureShare: 0,
      appealShare: 0,
      callbackUrl: undefined,
    });
    expect(parseLoadConfig({ ...env, H2H_SCENARIO: "soak" }, profile)).toMatchObject({
      duration: "30m",
      rate: 10,
      thinkSeconds: 0,
    });
  });

  it.each([
    [{ H2H_BASE_URL: "localhost:8080" }, /H2H_BASE_URL="localhost:8080": must be an http\(s\) URL/],
    [
      { H2H_BASE_URL: "http://127.0.0.1:8080/?tenant=1" },
      /H2H_BASE_URL="http:\/\/127.0.0.1:8080\/\?tenant=1": must have no query or fragment/,
    ],
    [{ H2H_API_KEY: "" }, /H2H_API_KEY is not set/],
    [{ H2H_SCENARIO: "burst" }, `H2H_SCENARIO="burst": must be one of ${SCENARIO_NAMES.join(", ")}`],
    [{ H2H_RATE: "-3" }, /H2H_RATE="-3"/],
    [{ H2H_DURATION: "10 minutes" }, /H2H_DURATION="10 minutes"/],
    [{ H2H_FAILURE_SHARE: "0.7", H2H_APPEAL_SHARE: "0.5" }, /must not exceed 1/],
    [{ H2H_MOBILE_SHARE: "2" }, /H2H_MOBILE_SHARE="2": must be a share between 0 and 1/],
    [{ H2H_RUN_ID: "run id with spaces" }, /H2H_RUN_ID/],
    [{ H2H_MAX_VUS: "2.5" }, /H2H_MAX_VUS="2.5"/],
    [{ H2H_VUS: "0" }, /H2H_VUS="0"/],
    [{ H2H_THINK_S: "-1" }, /H2H_THINK_S="-1"/],
    [{ H2H_MAX_VUS: "0x10" }, /H2H_MAX_VUS="0x10": must be a whole number from 1 to 10000/],
    [{ H2H_P95_MS: "1e3" }, /H2H_P95_MS="1e3": must be a number of milliseconds > 0/],
    [{ H2H_MOBILE_SHARE: " 0.5" }, /H2H_MOBILE_SHARE=" 0.5"/],
    [{ H2H_RATE: "3" }, /H2H_RATE="3": smoke sends at most 2 orders\/s; use the load scenario for more/],
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

  it("smoke: 1.5 orders/s for 30 s with think time, on 2 VUs (never more than 2 orders/s)", () => {
    expect(buildScenario(parseLoadConfig(env, profile))).toEqual({
      executor: "constant-arrival-rate",
      rate: 90,
      timeUnit: "1m",
      duration: "30s",
      preAllocatedVUs: 2,
      maxVUs: 100,
    });
    expect(buildScenario(parseLoadConfig({ ...env, H2H_RATE: "2" }, profile))).toMatchObject({
      rate: 2,
      timeUnit: "1s",
    });
  });

  it("load and soak: an arrival-rate plateau, VUs sized for the rate", () => {
    expect(buildScenario(config("load"))).toMatchObject({
      executor: "constant-arrival-rate",
      rate: 20,
      timeUnit: "1s",
      duration: "2m",
      preAllocatedVUs: 2,
      maxVUs: 100,
    });
    expect(buildScenario(config("soak", { H2H_RATE: "1000" }))).toMatchObject({ preAllocatedVUs: 20 });
    expect(buildScenario(config("soak", { H2H_VUS: "50" }))).toMatchObject({ preAllocatedVUs: 50 });
  });

  it("stress: steps of ×1.5 from the rate, each judged on its settled window, stopping at the first broken one", () => {
    const steps = stressSteps({ rate: 20, duration: "2m" });
    expect(steps.map((s) => s.rate)).toEqual([20, 30, 45, 68, 102, 153, 230, 345]);
    expect(steps[1]).toEqual({ index: 1, rate: 30, startS: 15, settledFromS: 18, endS: 30 });
    expect(settledStepAt(steps, 16)).toBeUndefined();
    expect(settledStepAt(steps, 20)?.index).toBe(1);
    const stress = buildScenario(config("stress")) as { stages: { target: number; duration: string }[] };
    expect(stress.stages.map((s) => s.target)).toEqual(steps.flatMap((s) => [s.rate, s.rate]));
    expect(stress.stages.reduce((sum, s) => sum + durationSeconds(s.duration), 0)).toBe(120);
    const thresholds = buildOptions(config("stress"), ["quasi_ecom"]).thresholds as Record<string, unknown[]>;
    expect(thresholds["http_req_duration{name:createQuasiEcomOrder,step:3,expected_response:true}"]).toEqual([
      { threshold: "p(95)<500", abortOnFail: true },
    ]);
    expect(thresholds["http_req_failed{step:3,h2h_request:api}"]).toEqual([
      { threshold: "rate<0.01", abortOnFail: true },
    ]);
    expect(thresholds["checks{step:3}"]).toEqual(["rate>=0"]);
    expect(isBookkeeping("rate>=0") && isBookkeeping("count >= 0") && !isBookkeeping("rate>0.99")).toBe(true);
    // Short runs still get three steps.
    expect(stressSteps({ rate: 5, duration: "10s" })).toHaveLength(3);
  });

  it("spike: a sudden jump to five times the target and back", () => {
    const spike = buildScenario(config("spike")) as { stages: { target: number; duration: string }[] };
    expect(spike.stages.map((s) => s.target)).toEqual([5, 100, 100, 5, 5]);
    expect(spike.stages.reduce((sum, s) => sum + durationSeconds(s.duration), 0)).toBeCloseTo(120, -1);
  });

  it("caps VUs at H2H_MAX_VUS", () => {
    expect(buildScenario(config("spike", { H2H_RATE: "400", H2H_MAX_VUS: "7" }))).toMatchObject({
      preAllocatedVUs: 7,
      maxVUs: 7,
    });
  });

  it("says what each scenario sends", () => {
    expect(describeScenario(parseLoadConfig(env, profile), ["mobile_commerce", "quasi_ecom"])).toBe(
      "smoke: 1.5 orders/s for 30s, 1 s think time between each order and its confirmation, 50 % mobile commerce and 50 % quasi-ecom; confirmed to end 100 % succeeded, 0 % failed_by_terminal, 0 % succeeded_by_appeal (at most 100 VUs)",
    );
    expect(describeScenario(config("stress"), ["quasi_ecom"])).toMatch(
      /^stress: steps of 20, 30, 45, 68, 102, 153, 230, 345 orders\/s, about 15 s each, until a threshold breaks, quasi-ecom/,
    );
  });

  it("sets thresholds per endpoint on the name tag, only for the endpoints the script uses", () => {
    const options = buildOptions(config("load", { H2H_P95_MS: "250" }), ["quasi_ecom"]);
    expect(options.thresholds).toEqual({
      "http_req_failed{h2h_request:api}": ["rate<0.01"],
      checks: ["rate>0.99"],
      "http_req_duration{name:createQuasiEcomOrder,expected_response:true}": ["p(95)<250"],
      "http_req_duration{name:confirmQuasiEcomOrder,expected_response:true}": ["p(95)<250"],
    });
  });

  it("reads k6 durations", () => {
    expect(durationSeconds("1h30m")).toBe(5400);
    expect(durationSeconds("45s")).toBe(45);
    expect(durationSeconds("500ms")).toBe(0.5);
  });

  // The same TLS variables as certify, as k6's tlsAuth.
  it("reads H2H_CLIENT_CERT, H2H_CLIENT_KEY and the passphrase into k6's tlsAuth (read with the script's open)", () => {
    const files: Record<string, string> = {
      "/tls/client.pem": "-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n",
      "/tls/client.key": "-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----\n",
    };
    const read: string[] = [];
    const readText = (path: string) => {
      read.push(path);
      return files[path] as string;
    };
    const withTls = parseLoadConfig(
      {
        ...env,
        H2H_CLIENT_CERT: "/tls/client.pem",
        H2H_CLIENT_KEY: "/tls/client.key",
        H2H_CLIENT_KEY_PASSPHRASE: "pw",
      },
      profile,
    );
    expect(withTls.tls).toEqual({ certFile: "/tls/client.pem", keyFile: "/tls/client.key", password: "pw" });
    expect(buildOptions(withTls, ["quasi_ecom"], readText).tlsAuth).toEqual([
      { cert: files["/tls/client.pem"], key: files["/tls/client.key"], password: "pw" },
    ]);
    expect(read).toEqual(["/tls/client.pem", "/tls/client.key"]);
    const noPassphrase = parseLoadConfig(
      { ...env, H2H_CLIENT_CERT: "/tls/client.pem", H2H_CLIENT_KEY: "/tls/client.key" },
      profile,
    );
    expect(buildOptions(noPassphrase, ["quasi_ecom"], readText).tlsAuth).toEqual([
      { cert: files["/tls/client.pem"], key: files["/tls/client.key"] },
    ]);
    // Without the variables: no tlsAuth, and no file is read.
    read.length = 0;
    const plain = buildOptions(parseLoadConfig(env, profile), ["quasi_ecom"], readText);
    expect(plain.tlsAuth).toBeUndefined();
    expect(read).toEqual([]);
  });

  it("refuses a client certificate without its key, and a key without its certificate", () => {
    expect(() => parseLoadConfig({ ...env, H2H_CLIENT_CERT: "/tls/client.pem" }, profile)).toThrow(
      "H2H_CLIENT_CERT is set without H2H_CLIENT_KEY: both are needed for a client certificate",
    );
    expect(() => parseLoadConfig({ ...env, H2H_CLIENT_KEY: "/tls/client.key" }, profile)).toThrow(
      "H2H_CLIENT_KEY is set without H2H_CLIENT_CERT",
    );
  });
});

describe("the settings table's rows of the script's variables", () => {
  // npm run load checks its flags with the table's parsers; k6 reads the same variables with
  // parseLoadConfig (no zod in a bundle): both must take and refuse the same values, with the same words.
  it.each([
    ["rate", ["1", "0.5", "0", "-3", "1e3", "abc", "100001"]],
    ["duration", ["30s", "1h30m", "10 minutes", "5"]],
    ["thinkSeconds", ["0", "60", "61", "0.5", "x"]],
    ["vus", ["1", "0", "2.5", "10001"]],
    ["maxVus", ["100", "0", "2.5"]],
    ["mobileShare", ["0", "1", "0.5", "2", "-1"]],
    ["failureShare", ["0", "0.2", "1.5"]],
    ["appealShare", ["0", "0.2", "1.5"]],
    ["p95Ms", ["500", "0", "x"]],
    ["fieldCheckEvery", ["1", "10", "0", "1.5"]],
    ["scenario", ["load", "soak", "burst"]],
    ["runId", ["run-1", "run id", "x".repeat(61)]],
    ["callbackUrl", ["http://127.0.0.1:1/cb", "sink"]],
  ] as const)("%s", (key, values) => {
    const spec = SETTINGS[key];
    for (const value of values) {
      const base = { ...env, H2H_SCENARIO: "load" };
      let k6Refusal: string | undefined;
      try {
        parseLoadConfig({ ...base, [spec.variable]: value }, profile);
      } catch (error) {
        k6Refusal = (error as Error).message;
      }
      let tableRefusal: string | undefined;
      try {
        parseSetting(key, { [spec.variable]: value });
      } catch (error) {
        tableRefusal = (error as Error).message;
      }
      expect(tableRefusal, `${spec.variable}=${value}`).toBe(k6Refusal);
    }
  });
});
