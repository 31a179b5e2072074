/** A signed verdict: the in-toto attestation of a run's reports, and its verification. */
export {
  ATTESTATION_FILE,
  AttestationInputError,
  attestReports,
  attestRunReports,
  exitOfVerification,
  verificationLines,
  verifyAttestation,
} from "./attestation.ts";
export { AttestationKeyError, readSigningKey, readVerifyKey } from "./keys.ts";
