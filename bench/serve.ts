/**
 * A server for a benchmark, run in its own process so that it does not share an event loop
 * with the load generator: `serve.ts provider` (the reference provider, default options) or
 * `serve.ts bare` (a bare node:http server answering a fixed JSON body). Prints
 * `LISTENING <url>` once ready and stops on SIGTERM.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startReferenceProvider } from "../fixtures/reference-provider/index.ts";

/** A body of the size and shape of a mobile-commerce creation answer, so both servers write alike. */
export const FIXED_BODY = JSON.stringify({
  data: {
    id: "c67ce84c-9198-4065-a3d5-9c82c8569184",
    dateAdded: "2026-11-22T03:07:45.523Z",
    dateUpdated: "2026-11-22T03:07:45.523Z",
    orderType: "mobile_commerce",
    status: "payment_pending",
    idTransactionMerchant: null,
    amount: 1500,
    amountComission: 37.5,
    currency: "RUB",
    usdtAmount: 16.22,
    usdtAmountComission: 0.41,
    exchangeRate: 92.5,
    merchantID: "merchant-1",
    routingAttempts: [],
    paymentDetailsData: {
      methodID: 101,
      requisiteTypeCode: "link",
      mediatorName: null,
      bankCode: null,
      number: null,
      numberAdditional: null,
      link: "https://pay.sandbox.invalid/c67ce84c-9198-4065-a3d5-9c82c8569184",
    },
  },
  result: {
    codeError: "none",
    message: null,
    status: "success",
    "x-request-id": "392c8b7c-dc98-4e9d-8238-20b7f09f25f7",
  },
});

async function startBare(): Promise<{ url: string; stop(): Promise<unknown> }> {
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    // Consume the body like any real handler must before answering on a keep-alive connection.
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(FIXED_BODY),
      });
      res.end(FIXED_BODY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

const kind = process.argv[2];
if (kind !== "provider" && kind !== "bare") {
  console.error("usage: serve.ts provider|bare");
  process.exit(64);
}
const server = kind === "provider" ? await startReferenceProvider({ port: 0 }) : await startBare();
console.log(`LISTENING ${server.url}`);
process.once("SIGTERM", () => {
  void server.stop().then(() => process.exit(0));
});
