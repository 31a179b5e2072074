/**
 * The target package's public surface: what opening a target needs, for certify and load alike.
 * The run settings (a remote URL, or none for the bundled reference provider, the keys, TLS),
 * a provider image started as the target (H2H_TARGET_IMAGE) on the container engine, and what
 * every run sets up around the target: the webhook sink and the masker.
 */
// The container engine (testcontainers) as the target container and load's k6 container use it.
export {
  ContainerEngineError,
  effectiveImageName,
  engineClient,
  ensureImage,
  ensureReaper,
  reasonOf,
  stopAndRemove,
  watchedContainer,
} from "./container-engine.ts";
// Opening a run's target: the bundled provider or a container, the sink, the masker.
export { type OpenedTarget, openTarget } from "./open-target.ts";
export {
  type RunSecrets,
  rateLimitRetryOf,
  runMasker,
  shortSecretWarnings,
  startRunSink,
} from "./run-setup.ts";
export {
  CODE_ROOT,
  PROJECT_ROOT,
  readTlsSettings,
  type Settings,
  targetSettingsOf,
  withReferenceDefaults,
} from "./settings.ts";
// Every setting in one table, parsed once per command.
export {
  DEFAULT_K6_IMAGE,
  environmentHelp,
  MAX_SEED,
  MAX_WORKERS,
  type ParseSettingsOptions,
  parseSetting,
  parseSettings,
  type RunSettings,
  SETTINGS,
  type SettingKey,
  type SettingReader,
  type SettingSpec,
  SettingsError,
  sourceName,
  TIMELINE_POINTS,
  userDirectory,
  withSettingsTable,
} from "./settings-table.ts";
// A provider image as the target (H2H_TARGET_IMAGE).
export {
  readTargetContainerSettings,
  secretEnvValues,
  type TargetContainerRecord,
  type TargetContainerSettings,
} from "./target-container.ts";
