import { describe, expect, it } from "vitest";
import { ExchangeRecorder, type RecordedExchange } from "../../contract/index.ts";
import { createMasker } from "../../contract/kit/index.ts";
import { printSummary } from "../reports/console-summary.ts";
import { renderReport } from "../testing/render-report.ts";
import { runReportOf } from "../testing/run-report.ts";
import { reconnectsLine } from "./reconnects.ts";
import type { RunReport } from "./run-model.ts";

const exchange = (id: string, reconnected?: RecordedExchange["reconnected"]): RecordedExchange => ({
  id,
  source: "lifecycle",
  operation: "createMobileCommerceOrder",
  startedAt: "2026-01-01T00:00:01.000Z",
  durationMs: 3,
  request: { method: "POST", url: "http://127.0.0.1:8080/api/orders", headers: {}, body: "{}" },
  response: { status: 200, headers: {}, body: "{}", json: {} },
  ...(reconnected ? { reconnected } : {}),
});

const resent = exchange("lifecycle-2", {
  startedAt: "2026-01-01T00:00:00.990Z",
  code: "UND_ERR_SOCKET",
  detail:
    "http://127.0.0.1:8080/api/orders: UND_ERR_SOCKET (other side closed; idle 3.100 s, at the target's announced Keep-Alive timeout=5 (less the client's 2.000 s margin))",
});

// A failed check, so that the HTML shows its exchanges as evidence.
const report = (exchanges: RecordedExchange[]): RunReport =>
  runReportOf(
    [
      {
        endpoint: "createMobileCommerceOrder",
        check: "envelope.shape",
        rule: "r",
        status: "failed",
        required: true,
        detail: "result is missing",
        durationMs: 1,
        exchanges: exchanges.map((e) => e.id),
        source: "lifecycle",
      },
    ],
    { exchanges },
  );

describe("an exchange sent again on a new connection (the keep-alive race) shows in every report", () => {
  it("HAR: in the entry's comment and as _reconnected", () => {
    const har = JSON.parse(renderReport("har", report([exchange("lifecycle-1"), resent]))) as {
      log: { entries: { comment: string; _reconnected?: unknown }[] };
    };
    const [once, twice] = har.log.entries;
    expect(once?._reconnected).toBeUndefined();
    expect(once?.comment).not.toContain("reconnected");
    expect(twice?._reconnected).toEqual(resent.reconnected);
    expect(twice?.comment).toContain(
      "reconnected: first sent at 2026-01-01T00:00:00.990Z on a kept-alive connection the target had closed at its idle timeout (UND_ERR_SOCKET, unread: ",
    );
  });

  it("HTML: on the exchange's evidence, and once for the run", () => {
    const html = renderReport("html", report([exchange("lifecycle-1"), resent]));
    expect(html.match(/<b>Sent twice<\/b>/g)).toHaveLength(1);
    expect(html).toContain(
      "reconnected: 1 request(s) met a kept-alive connection the target had closed at its announced idle timeout",
    );
    expect(renderReport("html", report([exchange("lifecycle-1")]))).not.toContain("reconnected");
  });

  it("console: one line for the run, none when every request went out once", () => {
    const lines: string[] = [];
    printSummary(
      report([exchange("lifecycle-1"), resent]),
      { json: "r.json" } as never,
      (l) => lines.push(l),
      "/",
    );
    expect(lines).toContain(reconnectsLine([resent]));
    const quiet: string[] = [];
    printSummary(report([exchange("lifecycle-1")]), { json: "r.json" } as never, (l) => quiet.push(l), "/");
    expect(quiet.join("\n")).not.toContain("reconnected");
  });
});

describe("recording a resent exchange", () => {
  it("keeps reconnected, its text masked like the rest", () => {
    const recorder = new ExchangeRecorder(
      "lifecycle",
      createMasker({ secrets: ["s3cret-key-0042"] }),
      undefined,
    );
    const recorded = recorder.record({
      ...resent,
      reconnected: {
        ...(resent.reconnected as NonNullable<RecordedExchange["reconnected"]>),
        detail: "https://x/s3cret-key-0042: other side closed",
      },
    });
    expect(recorded.reconnected?.code).toBe("UND_ERR_SOCKET");
    expect(recorded.reconnected?.detail).not.toContain("s3cret-key-0042");
  });
});
