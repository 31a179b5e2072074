/**
 * The sandbox clock: an EXTENSION outside the API description's contract, offered by the
 * reference provider so that expiry can be provoked without waiting out an order's lifetime.
 * A target without it answers 404 `not_found`, and the suite then waits instead.
 *
 * `POST /sandbox/v1/clock/advance` with the merchant's bearer key and body
 * `{"seconds": N, "orderId": "<id>"}` moves that one order's clock forward by N seconds; without
 * `orderId` it moves the whole provider's clock.
 */
import * as z from "zod";

export const SANDBOX_CLOCK_ADVANCE_PATH = "/sandbox/v1/clock/advance";

export const AdvanceClockRequest = z.looseObject({
  /** Seconds to move forward; the clock never moves back. At most a day, to catch unit mix-ups. */
  seconds: z.number().positive().max(86_400),
  orderId: z.string().min(1).optional(),
});
export type AdvanceClockRequest = z.infer<typeof AdvanceClockRequest>;
