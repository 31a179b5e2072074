/**
 * Requests sent twice over the keep-alive race: the target closed a kept-alive connection at its
 * announced idle timeout as the request went out on it, unread, and the client sent it once more on a new connection (the
 * exchange's `reconnected`). The reports and the console say so, so that a second arrival at the
 * target is never a mystery.
 */
import type { RecordedExchange } from "../../contract/index.ts";

/** How many of the run's exchanges were sent again on a new connection. */
export function reconnectedCount(exchanges: readonly Pick<RecordedExchange, "reconnected">[]): number {
  return exchanges.filter((e) => e.reconnected !== undefined).length;
}

/** The run-wide line: undefined when no exchange was sent again. */
export function reconnectsLine(
  exchanges: readonly Pick<RecordedExchange, "reconnected">[],
): string | undefined {
  const count = reconnectedCount(exchanges);
  if (count === 0) return undefined;
  return (
    `reconnected: ${count} request(s) met a kept-alive connection the target had closed at its announced idle timeout, unread, ` +
    "and were sent again on a new connection (each such exchange says why)"
  );
}

/** One exchange's note: undefined when it went out once. */
export function reconnectedNote(exchange: Pick<RecordedExchange, "reconnected">): string | undefined {
  const again = exchange.reconnected;
  if (!again) return undefined;
  return (
    `reconnected: first sent at ${again.startedAt} on a kept-alive connection the target had closed at its idle timeout ` +
    `(${again.code}, unread: ${again.detail}); sent again on a new connection, the answer shown is to that`
  );
}
