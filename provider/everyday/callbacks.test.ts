import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deliverCallback, isLoopbackUrl, signCallback } from "./callbacks.ts";

describe("signCallback", () => {
  it("is v1= and the hex HMAC-SHA256 of the raw body", () => {
    const raw = '{"type":"order.status"}';
    expect(signCallback(raw, "s")).toBe(`v1=${createHmac("sha256", "s").update(raw).digest("hex")}`);
  });
});

describe("isLoopbackUrl", () => {
  it("accepts localhost, 127.0.0.0/8 and ::1 only", () => {
    for (const url of [
      "http://localhost:1/x",
      "http://127.0.0.1/",
      "http://127.9.8.7:80",
      "http://[::1]:9/",
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of ["http://example.com/", "http://10.0.0.1/", "http://127.0.0.1.nip.io/", "not a url"]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });
});

describe("deliverCallback", () => {
  it("does not call a host that is not loopback unless told to", async () => {
    const lines: string[] = [];
    const sent = await deliverCallback(
      "http://example.com/hook",
      {
        type: "order.status",
        payload: {
          orderId: "ord_1",
          merchantOrderId: null,
          merchantId: "m",
          orderType: "quasi-ecom",
          state: "expired",
          amount: 1,
          currency: "BRL",
          updatedAt: "2026-01-01T00:00:00.000+00:00",
        },
      },
      {
        secret: "s",
        retryDelaysMs: [],
        timeoutMs: 100,
        hosts: "loopback",
        signal: new AbortController().signal,
        log: (line) => lines.push(line),
      },
    );
    expect(sent).toBe(false);
    expect(lines[0]).toContain("not a loopback host");
  });
});
