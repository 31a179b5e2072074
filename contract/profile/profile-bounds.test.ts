/**
 * A profile is bounded in size, depth and keys: a huge file, an endless device or a key flood is
 * refused at once, naming the path and the bound, never read whole or walked for a minute.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  MAX_PROFILE_BYTES,
  MAX_PROFILE_DEPTH,
  MAX_PROFILE_KEYS,
  ProfileError,
  readProfile,
} from "./profile.ts";

/** CPU time (user + system) in ms: what reading a profile costs, whatever else shares the cores. */
const cpuMs = ({ user, system }: NodeJS.CpuUsage) => (user + system) / 1000;

const dir = mkdtempSync(join(tmpdir(), "h2h-profile-bounds-"));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("profile bounds", () => {
  it("refuses a profile over 1 MiB without reading it whole, naming the path and the bound", async () => {
    const path = write("huge.json", `{"name":"x","pad":"${"x".repeat(8 * MAX_PROFILE_BYTES)}"}`);
    const started = process.cpuUsage();
    const error = await readProfile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProfileError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain("larger than 1,048,576 bytes");
    expect(cpuMs(process.cpuUsage(started))).toBeLessThan(5_000);
  });

  it.skipIf(!existsSync("/dev/urandom"))("refuses /dev/urandom at once", async () => {
    const started = process.cpuUsage();
    await expect(readProfile("/dev/urandom")).rejects.toThrow(
      /\/dev\/urandom is larger than 1,048,576 bytes/,
    );
    expect(cpuMs(process.cpuUsage(started))).toBeLessThan(5_000);
  });

  it("refuses a profile with more keys than the bound, fast", async () => {
    const keys = Array.from({ length: MAX_PROFILE_KEYS + 1 }, (_, i) => `"k${i}":1`).join(",");
    const path = write("keys.json", `{${keys}}`);
    const started = process.cpuUsage();
    await expect(readProfile(path)).rejects.toThrow(
      `more than ${MAX_PROFILE_KEYS.toLocaleString("en-US")} keys`,
    );
    expect(cpuMs(process.cpuUsage(started))).toBeLessThan(5_000);
  });

  it("refuses a profile nested deeper than the bound", async () => {
    const depth = MAX_PROFILE_DEPTH + 1;
    const path = write("deep.json", `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`);
    await expect(readProfile(path)).rejects.toThrow(`deeper than ${MAX_PROFILE_DEPTH} levels`);
    const arrays = write("arrays.json", `${"[".repeat(400_000)}${"]".repeat(400_000)}`);
    await expect(readProfile(arrays)).rejects.toThrow(`deeper than ${MAX_PROFILE_DEPTH} levels`);
  });
});
