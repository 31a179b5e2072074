/** A signed verdict: the in-toto attestation of a run's reports, and its verification. */
export {
  ATTESTATION_FILE,
  AttestationInputError,
  type Attested,
  attestReports,
  attestRunReports,
  exitOfVerification,
  REPORT_SET_FILES,
  removeAttestation,
  type Verification,
  verificationLines,
  verifyAttestation,
} from "./attestation.ts";
export { type DsseEnvelope, IN_TOTO_PAYLOAD_TYPE, preAuthEncoding } from "./dsse.ts";
export {
  AttestationKeyError,
  type KeyAlgorithm,
  readSigningKey,
  readVerifyKey,
  type SigningKey,
  type VerifyKey,
} from "./keys.ts";
export {
  RESULT_OF_VERDICT,
  STATEMENT_TYPE,
  type Statement,
  TEST_RESULT_PREDICATE,
  type TestResultPredicate,
} from "./statement.ts";
