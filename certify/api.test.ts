import { describe, expect, test } from "vitest";
import { certify, SettingsError } from "./api.ts";

describe("certify(settings), the package's API", () => {
  test("refuses a key the settings table does not have, listing the keys", async () => {
    const refused = certify({ baseURL: "http://127.0.0.1:1" } as never, { env: {} });
    await expect(refused).rejects.toThrow(SettingsError);
    await expect(refused).rejects.toThrow(/unknown setting "baseURL".*\bbaseUrl\b/);
  });

  test("reads a key as its variable, and a bad value is refused by that variable's name", async () => {
    await expect(certify({ baseUrl: "not a url" }, { env: {} })).rejects.toThrow(
      /H2H_BASE_URL "not a url" is not a URL/,
    );
  });
});
