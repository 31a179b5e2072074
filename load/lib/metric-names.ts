/**
 * The names of the scripts' custom metrics, shared by the k6 side (which records them) and the
 * harness (which reads them from k6's summary and timeline). k6-safe: no import at all.
 */

/** Counters `h2h_confirmed_<final status>`: orders confirmed, by the final status each aims at. */
export const CONFIRMED_METRIC_PREFIX = "h2h_confirmed_";
/** Counter of answers that were not a success, tagged `codeError` and `name`. */
export const BUSINESS_ERRORS_METRIC = "h2h_business_errors";
/** Counter of requests that got no answer (refused, reset, timed out), tagged `errorCode` (k6's) and `name`. */
export const TRANSPORT_ERRORS_METRIC = "h2h_transport_errors";
