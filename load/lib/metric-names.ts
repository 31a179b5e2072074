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
/**
 * Tag of every request k6 sends: "api" to the target, "note" to the sink (trigger notes). The
 * failed-request thresholds count the API's only.
 */
export const REQUEST_KIND_TAG = "h2h_request";
/** The failed-request metric of the API's requests (the sink's trigger notes left out). */
export const API_FAILED_METRIC = `http_req_failed{${REQUEST_KIND_TAG}:api}`;
/** The `name` tag of the trigger notes k6 sends the sink (not an endpoint of the API). */
export const TRIGGER_NOTE_NAME = "h2h_trigger_note";
