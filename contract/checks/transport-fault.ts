/**
 * A transport fault as a cause: the exchange got no answer (closed or reset after the request
 * went out), an answer with broken HTTP/1.1 framing, or an answer that may be another request's
 * (a desync). No check of the contract fails for it: the checks that needed the answer are not
 * evaluated, and the run counts them as errors (JUnit `errors`), never as failures.
 */
import type { Exchange } from "../client/index.ts";

/** What a check that met a transport fault waits on. */
export const TRANSPORT_FAULT = "target.transport-fault";

export interface TransportFaultCause {
  check: string;
  signature: string;
  reason: string;
}

/** The fault of a recorded exchange whose answer cannot be trusted (a desync), or undefined. */
export function transportFaultCause(
  exchange: Pick<Exchange, "transportFault">,
): TransportFaultCause | undefined {
  const fault = exchange.transportFault;
  if (!fault) return undefined;
  return {
    check: TRANSPORT_FAULT,
    signature: `transport fault · ${fault.kind}`,
    reason: `transport fault: ${fault.detail}`,
  };
}
