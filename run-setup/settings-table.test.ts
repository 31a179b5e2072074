/**
 * The settings table: parsed once into a frozen object, a flag over its variable, each bad value
 * refused naming it; docs/environment.md's block is the table's, and every H2H_* variable the
 * code reads has its row.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./settings.ts";
import {
  environmentHelp,
  parseSettings,
  SETTINGS,
  SettingsError,
  withSettingsTable,
} from "./settings-table.ts";

const certify = (env: Record<string, string>, flags = {}) =>
  parseSettings(env, { command: "certify", cwd: "/home/user", flags });

describe("the settings table", () => {
  it("parses a command's settings once into a frozen object, paths from the user's directory", () => {
    const settings = certify({ H2H_PROFILE: "acme.json", H2H_SINK_PORT: " 8080 ", H2H_DEPTH: "Thorough" });
    expect(Object.isFrozen(settings)).toBe(true);
    expect(settings).toMatchObject({
      profile: "/home/user/acme.json",
      reportDir: "/home/user/reports",
      sinkPort: 8080,
      depth: "thorough",
      baseUrl: undefined,
      sinkToken: undefined, // the sink's: certify does not read it
    });
    expect(settings.sources).toMatchObject({ sinkPort: "variable", depth: "variable", reportDir: "default" });
  });

  it("takes a flag over its variable: --base-url over H2H_BASE_URL, --seed over H2H_SEED", () => {
    const settings = certify(
      { H2H_BASE_URL: "http://127.0.0.1:1", H2H_SEED: "7" },
      { baseUrl: "https://sandbox.example", seed: 42 },
    );
    expect(settings).toMatchObject({ baseUrl: "https://sandbox.example", seed: 42 });
    expect(settings.sources).toMatchObject({ baseUrl: "flag", seed: "flag" });
  });

  it.each([
    [
      { H2H_BASE_URL: "localhost:8080" },
      {},
      'H2H_BASE_URL "localhost:8080" must start with http:// or https://',
    ],
    [{ H2H_BASE_URL: "nope" }, {}, 'H2H_BASE_URL "nope" is not a URL (expected e.g. http://127.0.0.1:8080)'],
    [
      { H2H_BASE_URL: "http://127.0.0.1:8080/?tenant=1" },
      {},
      'H2H_BASE_URL "http://127.0.0.1:8080/?tenant=1" has a query or fragment (after "?" or "#"): the API paths',
    ],
    [
      {},
      { baseUrl: "http://127.0.0.1:8080/h2h#v1" },
      '--base-url "http://127.0.0.1:8080/h2h#v1" has a query',
    ],
    [{ H2H_BASE_URL: "http://127.0.0.1:8080/?" }, {}, "an optional path prefix only"],
    [{}, { baseUrl: "ftp://x" }, '--base-url "ftp://x" must start with http:// or https://'],
    [{ H2H_API_KEY: "  " }, {}, "H2H_API_KEY is set but empty: give it a value, or unset it"],
    [{}, { baseUrl: " " }, "--base-url is given but empty"],
    [{ H2H_SINK_PORT: "70000" }, {}, 'H2H_SINK_PORT "70000" is not a port number (0-65535)'],
    [
      { H2H_SINK_PUBLIC_URL: "tunnel.example" },
      {},
      'H2H_SINK_PUBLIC_URL "tunnel.example" is not an http(s) URL',
    ],
    [
      { H2H_SINK_PUBLIC_URL: "https://tunnel.example/abc/?tenant=1" },
      {},
      'H2H_SINK_PUBLIC_URL "https://tunnel.example/abc/?tenant=1" has a query or fragment, which the callback URLs cannot carry',
    ],
    [
      { H2H_SINK_PUBLIC_URL: "https://tunnel.example/#x" },
      {},
      'H2H_SINK_PUBLIC_URL "https://tunnel.example/#x" has a query or fragment',
    ],
    [{ H2H_CLIENT_KEY_PASSPHRASE: "s3cret" }, {}, "H2H_CLIENT_KEY_PASSPHRASE is set without H2H_CLIENT_KEY"],
    [{ H2H_TARGET_STARTUP_S: "30" }, {}, "H2H_TARGET_STARTUP_S set without H2H_TARGET_IMAGE"],
  ])("refuses %o %o, naming the variable or flag and the fix", (env, flags, message) => {
    expect(() => certify(env, flags)).toThrow(SettingsError);
    expect(() => certify(env, flags)).toThrow(message);
  });

  it("keeps the path of H2H_SINK_PUBLIC_URL (a tunnel that forwards the whole path)", () => {
    expect(certify({ H2H_SINK_PUBLIC_URL: "https://tunnel.example/abc/" }).sinkPublicUrl).toBe(
      "https://tunnel.example/abc/",
    );
  });

  it("keeps a passphrase as it is, spaces included", () => {
    const settings = certify({ H2H_CLIENT_KEY: "/k.pem", H2H_CLIENT_KEY_PASSPHRASE: " a b " });
    expect(settings.clientKeyPassphrase).toBe(" a b ");
  });

  it("gives each command's help the settings it reads, and only those", () => {
    const sink = environmentHelp("sink").join("\n");
    expect(sink).toContain("H2H_SINK_TOKEN");
    expect(sink).toMatch(/H2H_SINK_PORT +the port the webhook sink listens on .*\(--port wins\)/);
    expect(sink).not.toContain("H2H_SEED");
    expect(environmentHelp("certify").join("\n")).toMatch(
      /H2H_BASE_URL +the target's base URL \(--base-url wins\)/,
    );
    // The k6 scripts' variables come from load's flags, which have their own help.
    expect(environmentHelp("load").join("\n")).not.toContain("H2H_RATE");
  });

  it("is what docs/environment.md shows between its settings marks", () => {
    const doc = readFileSync(join(PROJECT_ROOT, "docs/environment.md"), "utf8");
    expect(
      withSettingsTable(doc) === doc,
      "docs/environment.md's settings table differs from run-setup/settings-table.ts: run npm run docs",
    ).toBe(true);
  });

  it("has a row for every H2H_* variable the code reads", () => {
    const rows = new Set(Object.values(SETTINGS).map((spec) => spec.variable));
    const missing = sourceFiles(PROJECT_ROOT).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(VARIABLE)]
        .map((match) => match[0])
        .filter((name) => !name.endsWith("_") && !rows.has(name))
        .map((name) => `${name} (${relative(PROJECT_ROOT, file)})`),
    );
    expect([...new Set(missing)], "add a row to SETTINGS in run-setup/settings-table.ts for each").toEqual(
      [],
    );
  });
});

/** A variable's name, not part of a longer word (`__H2H_PROFILE__` is a bundle constant, `@@H2H_…@@` a placeholder). */
const VARIABLE = /(?<![\w@])H2H_[A-Z0-9_]+(?![\w@])/g;

/**
 * The code's .ts files: tests and their helpers (`testing/`) set variables of their own, and the
 * test runner's files (vitest.*) read npm test's, documented apart.
 */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ["node_modules", "testing", "dist", "reports"].includes(entry.name) || entry.name.startsWith(".")
        ? []
        : sourceFiles(path);
    const test = entry.name.endsWith(".test.ts") || entry.name.startsWith("vitest.");
    return entry.name.endsWith(".ts") && !test ? [path] : [];
  });
}

describe("secrets an HTTP header carries", () => {
  it("refuses a control byte in H2H_API_KEY, naming the variable and the character, never the value", () => {
    const refusal = (() => {
      try {
        certify({ H2H_BASE_URL: "http://127.0.0.1:1", H2H_API_KEY: "live-key\u0001-secret" });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(SettingsError);
    const message = (refusal as Error).message;
    expect(message).toContain("H2H_API_KEY holds a control character (U+0001) at character 9 of 16");
    expect(message).toContain("Authorization header");
    expect(message).not.toContain("live-key");
    expect(message).not.toContain("secret");
  });

  it("refuses a line feed in H2H_API_KEY_2 and H2H_CALLBACK_SECRET alike", () => {
    expect(() => certify({ H2H_API_KEY_2: "second\nkey" })).toThrow(
      /H2H_API_KEY_2 holds a line feed \(U\+000A\)/,
    );
    expect(() => certify({ H2H_CALLBACK_SECRET: "whsec\u007f" })).toThrow(
      /H2H_CALLBACK_SECRET holds a control character \(U\+007F\)/,
    );
  });

  it("takes spaces, tabs and Latin-1 letters as they are", () => {
    expect(certify({ H2H_API_KEY: "key with space\tand é" }).apiKey).toBe("key with space\tand é");
  });
});
