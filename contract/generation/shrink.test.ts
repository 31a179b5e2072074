import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REFERENCE_ORDER_METHODS } from "../../fixtures/providers/reference/index.ts";
import { createMasker } from "../kit/index.ts";
import { createRequestSchema, generateOrders } from "./generated-orders.ts";
import { methodViolations } from "./request-json-schema.ts";
import { shellQuote, shrinkRequest, toCurl } from "./shrink.ts";

const method202 = REFERENCE_ORDER_METHODS.find((m) => m.methodID === 202);
if (!method202) throw new Error("the reference lists method 202");
const orders = generateOrders({ seed: 9, methods: [method202], callbackUrl: "http://127.0.0.1:4010/cb/s" });
/** The order with every string at its maximum length and every optional field present. */
const big = orders[1]?.body as Record<string, unknown>;
const schema = createRequestSchema("quasi_ecom");
const shrinkOptions = { schema, method: method202 };

describe("shrinking a failing request", () => {
  it("keeps only what the failure needs: here, a mediatorName with a Kazakh letter", async () => {
    const fails = (body: Record<string, unknown>) =>
      /[әғқңөұүһі]/i.test(String((body.requisites as { mediatorName?: unknown }).mediatorName));
    expect(fails(big)).toBe(true);
    const result = await shrinkRequest(big, fails, shrinkOptions);
    expect(fails(result.body)).toBe(true);
    expect(Object.keys(result.body).sort()).toEqual(["amount", "clientID", "methodID", "requisites"]);
    expect((result.body.requisites as { mediatorName: string }).mediatorName).toMatch(/^.{1,2}$/u);
    expect(result.body.amount).toBe(1);
    expect(result.steps).toContain("removed metadata");
    expect(JSON.parse(result.json)).toEqual(result.body);
  });

  it("never leaves the contract or the method: conditional fields stay, every candidate is valid", async () => {
    const seen: Record<string, unknown>[] = [];
    const result = await shrinkRequest(
      big,
      (body) => {
        seen.push(body);
        return true;
      },
      shrinkOptions,
    );
    expect(typeof result.body.clientID).toBe("string");
    for (const body of seen) {
      expect(schema.safeParse(body).success).toBe(true);
      expect(methodViolations(body, method202)).toEqual([]);
    }
  });

  it("keeps the input when nothing smaller fails, and stops at the attempt budget", async () => {
    const none = await shrinkRequest(big, () => false, shrinkOptions);
    expect(none.body).toEqual(big);
    expect(none.steps).toEqual([]);
    const budget = await shrinkRequest(big, () => true, { ...shrinkOptions, maxAttempts: 3 });
    expect(budget.attempts).toBe(3);
    expect(budget.steps).toHaveLength(3);
  });

  it("is deterministic, also with an async predicate", async () => {
    const fails = async (body: Record<string, unknown>) =>
      typeof body.amount === "number" && body.amount > 100;
    const a = await shrinkRequest(big, fails, shrinkOptions);
    const b = await shrinkRequest(big, fails, shrinkOptions);
    expect(a).toEqual(b);
    expect(a.body.amount).toBe(1000);
  });
});

describe("a copy-paste curl command", () => {
  const masker = createMasker({ secrets: ["sandbox-key-merchant-1"], cardNumbers: ["4111111111111111"] });
  const body = JSON.stringify({
    requisites: { number: "4111111111111111", cvc: "123", mediatorName: "Jane O'Brien" },
  });
  const request = {
    method: "post",
    url: "http://127.0.0.1:4010/api/v1/payin/quasi-ecom/h2h",
    headers: {
      "content-type": "application/json",
      authorization: "Bearer sandbox-key-merchant-1",
      "content-length": "99",
    },
    body,
  };

  it("renders the request with masking applied, quoting safe for a POSIX shell", () => {
    const curl = toCurl(request, masker.text);
    expect(curl).toContain("curl -sS -X POST 'http://127.0.0.1:4010/api/v1/payin/quasi-ecom/h2h'");
    expect(curl).toContain("-H 'content-type: application/json'");
    expect(curl).not.toContain("content-length");
    expect(curl).not.toContain("sandbox-key-merchant-1");
    expect(curl).not.toContain("4111111111111111");
    expect(curl).toContain("************1111");
    expect(curl).not.toContain('"cvc":"123"');
    expect(curl).toContain("O'\\''Brien");
  });

  it("takes the bearer token from an environment variable: no key, and a command that runs as pasted", () => {
    const curl = toCurl(request, masker.text, { bearerFrom: "H2H_API_KEY" });
    expect(curl).toContain('--oauth2-bearer "$H2H_API_KEY"');
    expect(curl).not.toMatch(/authorization/i);
    // Masking the command again (as every report does) leaves it intact.
    expect(masker.text(curl)).toBe(curl);
    expect(() => toCurl(request, masker.text, { bearerFrom: "$(rm -rf /)" })).toThrow(
      "not an environment variable",
    );
  });

  it("quotes so that the shell hands curl the body byte for byte", () => {
    const tricky = `{"note":"it's $HOME \`id\` \\"q\\" \\\\ заказ 🛒"}`;
    const echoed = execFileSync("sh", ["-c", `printf %s ${shellQuote(tricky)}`], { encoding: "utf8" });
    expect(echoed).toBe(tricky);
    const unmasked = toCurl({ ...request, body: tricky }, (text) => text);
    expect(unmasked).toContain(`--data-binary ${shellQuote(tricky)}`);
  });
});
