/**
 * `npm run certify -- --check-profile` (issue 11 §7): validates the target profile and prints it
 * as the run would use it, every default filled in, without starting anything or sending a
 * request. A bad profile is refused with the path of each problem and its fix (exit 64).
 */
import { CHECK_REGISTRY, type Profile, readProfile } from "../contract/index.ts";
import { profilePathFrom, userDirectory } from "../target/index.ts";

export interface CheckProfileOptions {
  env?: Record<string, string | undefined>;
  /** Where a relative H2H_PROFILE resolves from (default: the user's directory). */
  cwd?: string;
  print?: (line: string) => void;
}

export async function checkProfile(options: CheckProfileOptions = {}): Promise<Profile> {
  const env = options.env ?? process.env;
  const print = options.print ?? console.log;
  const path = profilePathFrom(env, options.cwd ?? userDirectory(env));
  const profile = await readProfile(path, new Set(CHECK_REGISTRY.keys()));
  print(`profile ${path} is valid: "${profile.name}" (no request was sent)`);
  print("the effective profile, every default filled in:");
  for (const line of JSON.stringify(profile, null, 2).split("\n")) print(line);
  return profile;
}
