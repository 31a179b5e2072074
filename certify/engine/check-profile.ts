/**
 * `npm run certify -- --check-profile`: validates the target profile and prints it
 * as the run would use it, every default filled in, without starting anything or sending a
 * request. A bad profile is refused with the path of each problem and its fix (exit 64).
 */
import { CHECK_REGISTRY, type Profile, readProfile } from "../../contract/index.ts";
import type { RunSettings } from "../../run-setup/index.ts";

export interface CheckProfileOptions {
  /** The run's settings: the profile (H2H_PROFILE) is read from them. */
  settings: Pick<RunSettings, "profile">;
  print?: (line: string) => void;
}

export async function checkProfile(options: CheckProfileOptions): Promise<Profile> {
  const print = options.print ?? console.log;
  const path = options.settings.profile;
  const profile = await readProfile(path, new Set(CHECK_REGISTRY.keys()));
  print(`profile ${path} is valid: "${profile.name}" (no request was sent)`);
  print("the effective profile, every default filled in:");
  for (const line of JSON.stringify(profile, null, 2).split("\n")) print(line);
  return profile;
}
