/** The everyday sandbox of the H2H pay-in API (README.md): Express 5, nothing of the suite. */
export { createEverydayApp, type EverydayOptions } from "./app.ts";
export { isLoopbackUrl, SIGNATURE_HEADER, signCallback } from "./callbacks.ts";
export {
  CALLBACK_SECRET,
  CODES,
  DEFAULTS,
  MERCHANTS,
  METHODS,
  type Merchant,
  type Method,
} from "./config.ts";
export { ERROR_CODES } from "./errors.ts";
export { type RunningProvider, type StartOptions, startEverydayProvider } from "./server.ts";
