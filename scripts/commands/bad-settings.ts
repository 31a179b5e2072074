/** What a bad target profile or H2H_* variable means to every command that reads them. */

import { ProfileError } from "../../contract/index.ts";
import { SettingsError } from "../../run-setup/index.ts";
import { EXIT } from "../cli.ts";

/** A bad profile or setting is bad usage (64); its message names the file, key or variable. */
export const BAD_SETTINGS = [
  [ProfileError, EXIT.usage],
  [SettingsError, EXIT.usage],
] as const;

export const BAD_SETTINGS_EXIT = { [EXIT.usage]: "bad usage, a bad profile or variable" } as const;
