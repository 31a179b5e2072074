/**
 * The selftest package's public surface: the mutation self-test, which certifies the reference
 * provider switched into each fault of its catalogue through certify's own API.
 */
export { killRate, progressLine, renderMutationTable, runMutationSuite } from "./mutation.ts";
