import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CALLBACK_SECRET,
  CODES,
  MERCHANTS,
  type RunningProvider,
  SIGNATURE_HEADER,
  signCallback,
  startEverydayProvider,
} from "./index.ts";

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: { payload: Record<string, unknown> };
  at: number;
}

/** A loopback receiver: answers each callback with the status its path asks for (/status/500/…). */
async function startReceiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      raw += chunk;
    });
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        headers: req.headers,
        raw,
        body: JSON.parse(raw),
        at: Date.now(),
      });
      const status = /^\/status\/(\d{3})/.exec(req.url ?? "")?.[1];
      res.writeHead(status ? Number(status) : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

let provider: RunningProvider;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  provider = await startEverydayProvider({
    lifetimeMs: 1_500,
    processingDelayMs: 50,
    appealDelayMs: 100,
    callbackRetryDelaysMs: [100, 200],
  });
  receiver = await startReceiver();
});

afterAll(async () => {
  await provider.close();
  await new Promise((resolve) => receiver.server.close(resolve));
});

const north = MERCHANTS.north.apiKey;
const south = MERCHANTS.south.apiKey;

async function call(
  path: string,
  body: unknown,
  key: string | null = north,
  contentType = "application/json",
) {
  const headers: Record<string, string> = { "Content-Type": contentType };
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  const response = await fetch(provider.url + path, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the answers' fields freely
  const json = (await response.json()) as { data: any; result: Record<string, unknown> };
  return { status: response.status, headers: response.headers, ...json };
}

const MOBILE = "/api/v1/payin/mobile-commerce/h2h";
const QUASI = "/api/v1/payin/quasi-ecom/h2h";
const mobileConfirm = (id: string) => `/api/v1/orders/${id}/mobile-commerce-confirm/h2h`;
const quasiConfirm = (id: string) => `/api/v1/orders/${id}/ecom-confirm/h2h`;
const card = {
  number: "4111111111111111",
  mediatorName: "Jane Roe",
  lifetimeMonth: "09",
  lifetimeYear: "29",
  cvc: "123",
};

function waitFor<T>(find: () => T | undefined, ms = 5_000): Promise<T> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      const found = find();
      if (found !== undefined) resolve(found);
      else if (Date.now() - started > ms) reject(new Error("timed out"));
      else setTimeout(tick, 20);
    };
    tick();
  });
}

function callbacksOf(id: string): Received[] {
  return receiver.received.filter((r) => r.body.payload.orderId === id);
}

describe("creation", () => {
  it("answers a mobile-commerce order record in the envelope, with a payment link for 501", async () => {
    const answer = await call(MOBILE, { methodID: 501, amount: 1234.5, merchantOrderID: "rec-1" });
    expect(answer.status).toBe(200);
    expect(answer.result).toEqual({
      codeError: "none",
      message: null,
      status: "success",
      "x-request-id": answer.headers.get("x-request-id"),
    });
    const record = answer.data;
    expect(record.id).toMatch(/^ord_[0-9a-f]{20}$/);
    expect(record).toMatchObject({
      orderType: "mobile-commerce",
      status: "payment_pending",
      currency: "TRY",
      merchantID: "EVD-NORTH-0417",
      idTransactionMerchant: "rec-1",
      amount: 1234.5,
      amountComission: 38.27,
      usdtAmount: 29.4982,
      usdtAmountComission: 0.9145,
      exchangeRate: 41.85,
      routingAttempts: [],
      paymentDetailsData: { methodID: 501, requisiteTypeCode: "payment_link" },
    });
    expect(record.paymentDetailsData.link).toBe(`https://pay.everyday.example/l/${record.id}`);
    expect(record.dateAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
  });

  it("requires clientMetadata.phone and name for 502, and answers a UPI handle", async () => {
    const missing = await call(MOBILE, {
      methodID: 502,
      amount: 500,
      clientMetadata: { phone: "+919812345678" },
    });
    expect(missing.status).toBe(400);
    expect(missing.result).toMatchObject({ codeError: "request.invalid", status: "error" });
    expect(missing.result.message).toContain("clientMetadata.name");
    const ok = await call(MOBILE, {
      methodID: 502,
      amount: 500,
      clientMetadata: { phone: "+919812345678", name: "A" },
    });
    expect(ok.data.paymentDetailsData).toMatchObject({ requisiteTypeCode: "upi_vpa", link: null });
    expect(ok.data.paymentDetailsData.number).toMatch(/@everyday$/);
  });

  it("refuses what breaks §4 or the method's limits, naming the field", async () => {
    const cases: [unknown, string][] = [
      [{ amount: 100 }, "methodID"],
      [{ methodID: 501, amount: "100" }, "amount"],
      [{ methodID: 501, amount: 5 }, "amount"],
      [{ methodID: 501, amount: 250_000.01 }, "amount"],
      [{ methodID: 601, amount: 100 }, "methodID"],
      [{ methodID: 501, amount: 100, trafficType: "other" }, "trafficType"],
      [{ methodID: 501, amount: 100, metadata: { webHook: "ftp://x" } }, "metadata.webHook"],
      [[], "body"],
    ];
    for (const [body, field] of cases) {
      const answer = await call(MOBILE, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.result.codeError).toBe("request.invalid");
      expect(answer.result.message).toContain(field);
      expect(answer.data).toBeNull();
    }
  });

  it("creates a quasi-ecom order with a Luhn-valid card; 602 requires clientID", async () => {
    const ok = await call(QUASI, { methodID: 601, amount: 100, requisites: card, merchantOrderID: "q-1" });
    expect(ok.status).toBe(200);
    expect(ok.data).toEqual({
      id: expect.stringMatching(/^ord_/),
      status: "created",
      merchantOrderID: "q-1",
    });
    const luhn = await call(QUASI, {
      methodID: 601,
      amount: 100,
      requisites: { ...card, number: "4111111111111112" },
    });
    expect(luhn.result.message).toContain("requisites.number");
    const noClient = await call(QUASI, { methodID: 602, amount: 100, requisites: card });
    expect(noClient.result.message).toContain("clientID");
    expect(
      (await call(QUASI, { methodID: 602, amount: 100, requisites: card, clientID: "c-9" })).status,
    ).toBe(200);
  });

  it("keeps merchantOrderID unique per merchant, under concurrent creations too", async () => {
    const body = { methodID: 501, amount: 100, merchantOrderID: "dup-1" };
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => call(MOBILE, body)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status).toBe(409);
      expect(refused.result.codeError).toBe("order.duplicate_merchant_order_id");
    }
    expect((await call(MOBILE, body, south)).status).toBe(200);
  });
});

describe("refusals", () => {
  it("answers 401 to a missing or unknown key, and accepts the key with spaces around the header", async () => {
    for (const key of [null, "nope"]) {
      const answer = await call(MOBILE, { methodID: 501, amount: 100 }, key);
      expect(answer.status).toBe(401);
      expect(answer.result.codeError).toBe("auth.invalid_key");
      expect(answer.headers.get("www-authenticate")).toContain("Bearer");
    }
    const response = await fetch(provider.url + MOBILE, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `  bearer   ${north}  ` },
      body: JSON.stringify({ methodID: 501, amount: 100 }),
    });
    expect(response.status).toBe(200);
  });

  it("answers malformed JSON, a non-JSON type and an unknown path in the envelope", async () => {
    const broken = await call(MOBILE, '{"methodID": 501,');
    expect(broken.status).toBe(400);
    expect(broken.result.codeError).toBe("request.malformed_json");
    const text = await call(MOBILE, "methodID=501", north, "text/plain");
    expect(text.status).toBe(415);
    expect(text.result.codeError).toBe("request.unsupported_media_type");
    const unknown = await call("/sandbox/v1/clock/advance", { seconds: 10 });
    expect(unknown.status).toBe(404);
    expect(unknown.result.codeError).toBe("route.not_found");
    expect(typeof unknown.result["x-request-id"]).toBe("string");
  });

  it("takes a key with Unicode white space around it as that key (trim() and \\s)", async () => {
    for (const authorization of [`Bearer ${north}\u00a0`, `Bearer \u00a0${north}`]) {
      const response = await fetch(provider.url + MOBILE, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: authorization },
        body: JSON.stringify({ methodID: 501, amount: 100 }),
      });
      expect(response.status).toBe(200);
    }
    expect((await call(MOBILE, { methodID: 501, amount: 100 }, `${north}x`)).status).toBe(401);
  });

  it("answers JSON that is not an object or array as malformed (express.json() strict)", async () => {
    const answer = await call(MOBILE, '"not-an-object"');
    expect(answer.status).toBe(400);
    expect(answer.result.codeError).toBe("request.malformed_json");
  });

  it("refuses an optional field sent as null", async () => {
    const answer = await call(MOBILE, { methodID: 501, amount: 100, merchantOrderID: null });
    expect(answer.status).toBe(400);
    expect(answer.result.message).toContain("merchantOrderID");
  });
});

describe("confirmation", () => {
  it("refuses a wrong code with 422 and then accepts the right one", async () => {
    const { data } = await call(MOBILE, { methodID: 501, amount: 100, merchantOrderID: "conf-1" });
    const wrong = await call(mobileConfirm(data.id), { code: CODES.wrong });
    expect(wrong.status).toBe(422);
    expect(wrong.result.codeError).toBe("order.wrong_code");
    const malformed = await call(mobileConfirm(data.id), { code: ` ${CODES.succeeded}` });
    expect(malformed.status).toBe(400);
    const ok = await call(mobileConfirm(data.id), { code: CODES.succeeded });
    expect(ok.status).toBe(200);
    expect(ok.data).toEqual({
      id: data.id,
      status: "waiting_for_terminal",
      currency: "TRY",
      amount: 100,
      timer: expect.any(Number),
      merchantOrderID: "conf-1",
    });
    expect(ok.data.timer).toBeGreaterThan(0);
    expect(ok.data.timer).toBeLessThanOrEqual(2);
    const again = await call(mobileConfirm(data.id), { code: CODES.succeeded });
    expect(again.status).toBe(409);
    expect(again.result.codeError).toBe("order.not_confirmable");
  });

  it("hides another merchant's order and refuses the other kind's path", async () => {
    const { data } = await call(MOBILE, { methodID: 501, amount: 100 });
    const other = await call(mobileConfirm(data.id), { code: CODES.succeeded }, south);
    expect(other.status).toBe(404);
    expect(other.result.codeError).toBe("order.not_found");
    expect((await call(mobileConfirm("ord_00000000000000000000"), { code: CODES.succeeded })).status).toBe(
      404,
    );
    const wrongPath = await call(quasiConfirm(data.id), { code: CODES.succeeded });
    expect(wrongPath.status).toBe(409);
    expect(wrongPath.result.codeError).toBe("order.not_confirmable");
  });

  it("accepts exactly one of concurrent confirmations", async () => {
    const { data } = await call(QUASI, { methodID: 601, amount: 100, requisites: card });
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => call(quasiConfirm(data.id), { code: CODES.succeeded })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(answers.find((a) => a.status === 200)?.data.status).toBe("created");
  });
});

describe("callbacks", () => {
  it("sends a signed callback on succeeded", async () => {
    const { data } = await call(MOBILE, {
      methodID: 501,
      amount: 250,
      merchantOrderID: "cb-1",
      metadata: { webHook: `${receiver.url}/hook?x=1` },
    });
    await call(mobileConfirm(data.id), { code: CODES.succeeded });
    const [callback] = await waitFor(() =>
      callbacksOf(data.id).length > 0 ? callbacksOf(data.id) : undefined,
    );
    expect(callback?.path).toBe("/hook?x=1");
    expect(callback?.headers[SIGNATURE_HEADER.toLowerCase()]).toBe(
      signCallback(callback?.raw ?? "", CALLBACK_SECRET),
    );
    expect(callback?.headers[SIGNATURE_HEADER.toLowerCase()]).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(callback?.body).toEqual({
      type: "order.status",
      payload: {
        orderId: data.id,
        merchantOrderId: "cb-1",
        merchantId: "EVD-NORTH-0417",
        orderType: "mobile-commerce",
        state: "succeeded",
        amount: 250,
        currency: "TRY",
        updatedAt: expect.stringMatching(/\+00:00$/),
      },
    });
  });

  it("sends failed_by_terminal then succeeded_by_appeal for the appeal code", async () => {
    const { data } = await call(QUASI, {
      methodID: 601,
      amount: 100,
      requisites: card,
      metadata: { webHook: `${receiver.url}/hook` },
    });
    await call(quasiConfirm(data.id), { code: CODES.appeal });
    const both = await waitFor(() => (callbacksOf(data.id).length >= 2 ? callbacksOf(data.id) : undefined));
    expect(both.map((c) => c.body.payload.state)).toEqual(["failed_by_terminal", "succeeded_by_appeal"]);
    expect(both[0]?.body.payload.merchantOrderId).toBeNull();
  });

  it("expires an order left unconfirmed for its lifetime, and then refuses its confirmation", async () => {
    const { data } = await call(MOBILE, {
      methodID: 501,
      amount: 100,
      metadata: { webHook: `${receiver.url}/hook` },
    });
    const [callback] = await waitFor(() =>
      callbacksOf(data.id).length > 0 ? callbacksOf(data.id) : undefined,
    );
    expect(callback?.body.payload.state).toBe("expired");
    const late = await call(mobileConfirm(data.id), { code: CODES.succeeded });
    expect(late.status).toBe(409);
  });

  it("retries a callback not answered 2xx, after each delay", async () => {
    const { data } = await call(MOBILE, {
      methodID: 501,
      amount: 100,
      metadata: { webHook: `${receiver.url}/status/500` },
    });
    await call(mobileConfirm(data.id), { code: CODES.failedByTerminal });
    const attempts = await waitFor(() =>
      callbacksOf(data.id).length >= 3 ? callbacksOf(data.id) : undefined,
    );
    expect(attempts.map((a) => a.headers["x-everyday-attempt"])).toEqual(["1", "2", "3"]);
    expect(new Set(attempts.map((a) => a.raw)).size).toBe(1);
    const [first, second, third] = attempts.map((a) => a.at);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(90);
    expect((third ?? 0) - (second ?? 0)).toBeGreaterThanOrEqual(190);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(callbacksOf(data.id)).toHaveLength(3);
  });
});
