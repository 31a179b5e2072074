/** The kit: what any part of the suite needs and nothing of the contract: loopback, markup, masking, run folders, terminal, TLS. */

// What the contract's HTTP client builds on: keep-alive bookkeeping and the TLS connector.
export { CappedBytes } from "./capped-bytes.ts";
export { answerHeadTaken, closedConnectionOf, trackingSockets, trafficOf } from "./connection-reuse.ts";
export { isLoopbackUrl } from "./loopback.ts";
// How long this process and the machine were held up, so that lateness is never blamed on a target.
export { MachineStallSampler, type MachineStallSource } from "./machine-stall.ts";
// Report text escaped for HTML and XML (certify's reports and load's).
export { escapeHtml, escapeXml } from "./markup.ts";
export {
  createMasker,
  credentialsOfUrl,
  type Masker,
  SAFE_SECRET_LENGTH,
  secretSpellings,
} from "./masking.ts";
// The code as it runs: TypeScript in a checkout, compiled JavaScript in the installed package.
export { COMPILED, moduleBeside } from "./module-file.ts";
// A run's temporary folder, and the removal of those that runs now gone left behind.
export { isProcessGone, makeRunFolder, removeGoneRunFolders } from "./run-folders.ts";
export { StallMonitor } from "./stall-monitor.ts";
// A target's text on the terminal: control characters escaped, colours only on a TTY.
export { terminalSafe } from "./terminal.ts";
// TLS: extra CAs and mTLS client certificates, checked before use; TLS failures named.
export {
  describeTlsFailure,
  readTlsFiles,
  summarizeTlsFiles,
  type TlsAwareConnector,
  TlsConfigError,
  type TlsFailure,
  type TlsFiles,
  type TlsMaterial,
  type TlsSummary,
  tlsAwareConnector,
  tlsConnectOptions,
  tlsSummaryLines,
} from "./tls.ts";
