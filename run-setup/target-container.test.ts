/**
 * H2H_TARGET_* settings, read before anything starts: each bad value is refused with the
 * variable's name. (Real containers: certify/container-runs.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { SettingsError } from "./settings.ts";
import { parseSettings } from "./settings-table.ts";
import {
  readTargetContainerSettings as containerSettingsOf,
  DEFAULT_STARTUP_S,
  describeReadiness,
  freeLoopbackPort,
  LogBuffer,
  parseReadiness,
  parseTargetEnv,
  secretEnvValues,
} from "./target-container.ts";

/** The container's settings out of an environment, parsed as certify parses it. */
const readTargetContainerSettings = (env: Record<string, string>) =>
  containerSettingsOf(parseSettings(env, { command: "certify", cwd: "/" }));

describe("target container settings", () => {
  it("are absent without H2H_TARGET_IMAGE", () => {
    expect(readTargetContainerSettings({})).toBeUndefined();
  });

  it("default to any HTTP answer on / within 60 s, with no extra environment", () => {
    expect(readTargetContainerSettings({ H2H_TARGET_IMAGE: "acme/pay:1.2" })).toEqual({
      image: "acme/pay:1.2",
      env: {},
      readiness: { kind: "http", path: "/", anyStatus: true },
      startupTimeoutMs: DEFAULT_STARTUP_S * 1000,
    });
  });

  it("read H2H_TARGET_ENV, H2H_TARGET_READY and H2H_TARGET_STARTUP_S", () => {
    expect(
      readTargetContainerSettings({
        H2H_TARGET_IMAGE: "acme/pay:1.2",
        H2H_TARGET_ENV: "LOG_LEVEL=debug, GREETING=a\\,b=c,EMPTY=",
        H2H_TARGET_READY: "/health",
        H2H_TARGET_STARTUP_S: "2.5",
      }),
    ).toEqual({
      image: "acme/pay:1.2",
      env: { LOG_LEVEL: "debug", GREETING: "a,b=c", EMPTY: "" },
      readiness: { kind: "http", path: "/health", anyStatus: false },
      startupTimeoutMs: 2500,
    });
    expect(parseReadiness("log:listening on")).toEqual({ kind: "log", text: "listening on" });
  });

  it("refuse each bad value, naming the variable", () => {
    const bad = (env: Record<string, string>, message: string) => {
      const call = () => readTargetContainerSettings({ H2H_TARGET_IMAGE: "acme/pay:1.2", ...env });
      expect(call).toThrow(SettingsError);
      expect(call).toThrow(message);
    };
    bad({ H2H_TARGET_ENV: "LOG_LEVEL" }, 'H2H_TARGET_ENV: "LOG_LEVEL" is not NAME=value');
    bad({ H2H_TARGET_ENV: "1X=2" }, 'H2H_TARGET_ENV: "1X=2" is not NAME=value');
    bad({ H2H_TARGET_ENV: "PORT=80" }, "H2H_TARGET_ENV sets PORT: the suite sets PORT itself");
    bad({ H2H_TARGET_READY: "health" }, 'H2H_TARGET_READY "health" is neither an HTTP path');
    bad({ H2H_TARGET_READY: "log:" }, 'H2H_TARGET_READY "log:" names no text');
    bad({ H2H_TARGET_STARTUP_S: "soon" }, 'H2H_TARGET_STARTUP_S "soon" is not a number of seconds');
    bad({ H2H_TARGET_STARTUP_S: "0" }, 'H2H_TARGET_STARTUP_S "0"');
    bad({ H2H_BASE_URL: "http://127.0.0.1:8080" }, "H2H_BASE_URL and H2H_TARGET_IMAGE are both set");
    expect(() => readTargetContainerSettings({ H2H_TARGET_READY: "/health" })).toThrow(
      "H2H_TARGET_READY set without H2H_TARGET_IMAGE",
    );
  });

  it("say what readiness waits for", () => {
    expect(describeReadiness(parseReadiness(undefined))).toBe("GET / gets any HTTP answer");
    expect(describeReadiness(parseReadiness("/ready"))).toBe("GET /ready answers with a status below 500");
    expect(describeReadiness(parseReadiness("log:up"))).toBe('a log line contains "up"');
  });

  it("give the masker the values of secret-looking variables only", () => {
    const settings = readTargetContainerSettings({
      H2H_TARGET_IMAGE: "acme/pay:1.2",
      H2H_TARGET_ENV: "DB_PASSWORD=hunter2,API_TOKEN=t0k3n,LOG_LEVEL=debug",
    });
    expect(secretEnvValues(settings).sort()).toEqual(["hunter2", "t0k3n"]);
    expect(parseTargetEnv("")).toEqual({});
  });
});

describe("the container's log buffer", () => {
  it("keeps all of a short log", () => {
    const log = new LogBuffer(10, 10);
    log.append("abc\n");
    log.append("def\n");
    expect(log.text()).toBe("abc\ndef\n");
    expect(log.omittedChars).toBe(0);
  });

  it("keeps the beginning and the end of a long log and says how much of the middle is left out", () => {
    const log = new LogBuffer(6, 9);
    for (const line of ["start\n", "aaaa\n", "bbbb\n", "cccc\n", "end\n"]) log.append(line);
    expect(log.text()).toBe("start\n\n… 10 characters of log left out …\ncccc\nend\n");
    expect(log.omittedChars).toBe(10);
  });
});

describe("freeLoopbackPort", () => {
  it("gives a port nothing listens on", async () => {
    const port = await freeLoopbackPort();
    expect(port).toBeGreaterThan(0);
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });
});
