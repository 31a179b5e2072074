import { describe, expect, it } from "vitest";
import * as z from "zod";
import { REFERENCE_ORDER_METHODS } from "../../fixtures/providers/reference/index.ts";
import { CreateMobileCommerceOrderRequest, CreateQuasiEcomOrderRequest } from "../schemas/index.ts";
import {
  type CallbackUrlContext,
  FIELD_ROLES,
  type GeneratedOrder,
  generateOrders,
  luhnValid,
  methodRequestSchema,
  roleOf,
} from "./generated-orders.ts";
import { methodViolations, schemaFields, valueAt } from "./request-json-schema.ts";

const CALLBACK_BASE = "http://127.0.0.1:4010/callbacks/run-1";
const NOW = new Date("2026-11-22T10:00:00Z");
const generate = (seed = 42, extra: Partial<Parameters<typeof generateOrders>[0]> = {}) =>
  generateOrders({ seed, methods: REFERENCE_ORDER_METHODS, callbackUrl: CALLBACK_BASE, now: NOW, ...extra });
const schemaOf = (order: GeneratedOrder) =>
  order.kind === "mobile_commerce" ? CreateMobileCommerceOrderRequest : CreateQuasiEcomOrderRequest;

const quick = generate();
const thorough = generate(42, { depth: "thorough" });
const byMethod = (orders: readonly GeneratedOrder[], methodID: number) =>
  orders.filter((o) => o.method.methodID === methodID);
/** Free-text fields of a method's request, judged from the schema (no hand-written list). */
const freeTextPaths = (methodID: number) => {
  const method = REFERENCE_ORDER_METHODS.find((m) => m.methodID === methodID);
  if (!method) throw new Error(`no method ${methodID}`);
  return schemaFields(methodRequestSchema(method))
    .filter((f) => roleOf(f) === "free-text")
    .map((f) => f.path);
};

describe("generated orders", () => {
  it("are valid for the contract's zod schema and their method's rules, every one, at both depths", () => {
    for (const order of thorough) {
      const parsed = schemaOf(order).safeParse(order.body);
      expect(parsed.error?.issues ?? [], order.name).toEqual([]);
      expect(methodViolations(order.body, order.method), order.name).toEqual([]);
      expect(order.body.methodID, order.name).toBe(order.method.methodID);
      expect(JSON.parse(order.json), order.name).toEqual(order.body);
    }
  });

  it("are the same, byte for byte, for the same seed, and differ for another seed", () => {
    expect(generate().map((o) => o.json)).toEqual(quick.map((o) => o.json));
    const other = generate(43).map((o) => o.json);
    expect(other.filter((json, i) => json !== quick[i]?.json).length).toBeGreaterThan(quick.length / 2);
  });

  it("cover every method; the quick depth is a prefix of the thorough one", () => {
    for (const method of REFERENCE_ORDER_METHODS) {
      expect(byMethod(quick, method.methodID).length).toBeGreaterThanOrEqual(5);
      expect(byMethod(thorough, method.methodID).length).toBeGreaterThan(
        byMethod(quick, method.methodID).length,
      );
    }
    const names = quick.map((o) => o.name);
    expect(thorough.filter((o) => names.includes(o.name)).map((o) => o.json)).toEqual(
      quick.map((o) => o.json),
    );
  });

  it("give every order a merchantOrderID of its own, led by the run's prefix", () => {
    const ids = thorough.map((o) => o.merchantOrderID).filter((id): id is string => id !== null);
    expect(new Set(ids).size).toBe(ids.length);
    const tagged = generate(42, { merchantOrderIdPrefix: "run-7f3a" });
    for (const order of tagged)
      if (order.merchantOrderID) expect(order.merchantOrderID).toMatch(/^run-7f3a-\d{3}-\d+/);
  });

  it("exercise the declared minimum and maximum amounts and fractional amounts of at most two decimals", () => {
    for (const method of REFERENCE_ORDER_METHODS) {
      const amounts = byMethod(quick, method.methodID).map((o) => o.body.amount as number);
      expect(amounts).toContain(0.01);
      expect(amounts).toContain(1_000_000);
      expect(amounts.some((a) => !Number.isInteger(a))).toBe(true);
    }
    for (const order of thorough) {
      const amount = order.body.amount as number;
      expect(String(amount), order.name).toMatch(/^\d+(\.\d{1,2})?$/);
      expect(amount).toBeGreaterThan(0);
      expect(amount).toBeLessThanOrEqual(1_000_000);
    }
    const limited = generate(1, {
      methods: [
        {
          kind: "mobile_commerce",
          methodID: 101,
          currency: "RUB",
          minAmount: 150,
          maxAmount: 7500.5,
          requiredFields: [],
        },
      ],
    }).map((o) => o.body.amount);
    expect(limited).toContain(150);
    expect(limited).toContain(7500.5);
  });

  it("put every free-text field at its maximum length, and Cyrillic, Kazakh and emoji in every one", () => {
    for (const method of REFERENCE_ORDER_METHODS) {
      const orders = byMethod(quick, method.methodID);
      const texts = freeTextPaths(method.methodID);
      expect(texts.length).toBeGreaterThan(0);
      const fields = schemaFields(methodRequestSchema(method));
      for (const path of texts) {
        const values = orders
          .map((o) => valueAt(o.body, path))
          .filter((v): v is string => typeof v === "string");
        const max = fields.find((f) => f.path === path)?.node.maxLength;
        expect(
          values.some((v) => v.length === max),
          `${method.methodID} ${path} at ${max}`,
        ).toBe(true);
        expect(
          values.some((v) => /[а-яё]/i.test(v)),
          `${path} Cyrillic`,
        ).toBe(true);
        expect(
          values.some((v) => /[әғқңөұүһі]/i.test(v)),
          `${path} Kazakh`,
        ).toBe(true);
        expect(
          values.some((v) => /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(v)),
          `${path} emoji`,
        ).toBe(true);
      }
    }
  });

  it("send each optional field present, absent and null", () => {
    for (const method of REFERENCE_ORDER_METHODS) {
      const orders = byMethod(quick, method.methodID);
      // A method's conditional fields, and the objects holding them, are always sent.
      const kept = (path: string) =>
        method.requiredFields.some((r) => r === path || r.startsWith(`${path}.`));
      const optional = schemaFields(methodRequestSchema(method)).filter((f) => !f.required && !kept(f.path));
      for (const field of optional) {
        const seen = new Set(
          orders.map((o) => {
            const value = valueAt(o.body, field.path);
            return value === undefined ? "absent" : value === null ? "null" : "present";
          }),
        );
        expect([...seen].sort(), `${method.methodID} ${field.path}`).toEqual(["absent", "null", "present"]);
      }
    }
  });

  it("keep a method's conditional fields present and non-null in every order", () => {
    for (const order of thorough) {
      for (const path of order.method.requiredFields) {
        expect(typeof valueAt(order.body, path), `${order.name} ${path}`).toBe("string");
      }
    }
  });

  it("write webHook URLs as merchants do, on the callback base: a query, an explicit port, percent-encoding, a trailing /", () => {
    for (const method of REFERENCE_ORDER_METHODS) {
      const hooks = byMethod(quick, method.methodID)
        .map((o) => o.webHook)
        .filter((h): h is string => h !== null);
      for (const hook of hooks)
        expect(hook.replace(":4010", "")).toMatch(/^http:\/\/127\.0\.0\.1\/callbacks\/run-1/);
      expect(hooks.some((h) => new URL(h).search.length > 1)).toBe(true);
      expect(hooks.some((h) => /%[0-9A-F]{2}/.test(new URL(h).search))).toBe(true);
    }
    // A path ending in "/" before a query, every depth; alone, in the random mixes: the slash is part of the URL.
    for (const method of REFERENCE_ORDER_METHODS)
      expect(byMethod(quick, method.methodID).some((o) => /\/\?ref=/.test(o.webHook ?? ""))).toBe(true);
    const mixed = thorough.map((o) => o.webHook).filter((h): h is string => h !== null);
    expect(mixed.some((h) => h.endsWith("/"))).toBe(true);
    // A base without a port gets the scheme's default one written out: still the same endpoint.
    const portless = generate(42, { callbackUrl: "https://sink.example.org/h2h/tag-1" }).map(
      (o) => o.webHook,
    );
    expect(portless.some((h) => h?.startsWith("https://sink.example.org:443/h2h/tag-1"))).toBe(true);
    const max = portless.find((h) => h?.startsWith("https://sink.example.org:443/h2h/tag-1?pad="));
    expect(max?.length).toBe(2048);
    // A base that writes out its default port (a sink on port 80) keeps it once, and stays a URL.
    const port80 = generate(42, { callbackUrl: "http://127.0.0.1:80/callbacks/t" }).map((o) => o.webHook);
    for (const hook of port80) if (hook) expect(URL.canParse(hook), hook).toBe(true);
    expect(port80.some((h) => h?.startsWith("http://127.0.0.1:80/callbacks/t"))).toBe(true);
  });

  it("ask the callback URL function for each order, so the sink can tag it", () => {
    const asked: CallbackUrlContext[] = [];
    const orders = generate(5, {
      callbackUrl: (context) => {
        asked.push(context);
        return `http://127.0.0.1:4010/cb/${context.methodID}-${context.index}`;
      },
    });
    for (const order of orders) {
      if (order.webHook) expect(order.webHook).toContain(`/cb/${order.method.methodID}-${order.index}`);
    }
    expect(asked.map((c) => c.name)).toContain(orders[0]?.name);
  });

  it("use format-valid card data: a Luhn-valid test number, MM, a YY not expired, 3 and 4 digit CVCs", () => {
    const cards = thorough
      .filter((o) => o.kind === "quasi_ecom")
      .map((o) => o.body.requisites as Record<string, string>);
    const currentYear = NOW.getUTCFullYear() % 100;
    for (const card of cards) {
      expect(luhnValid(card.number as string)).toBe(true);
      expect(card.lifetimeMonth).toMatch(/^(0[1-9]|1[0-2])$/);
      expect(Number(card.lifetimeYear)).toBeGreaterThan(currentYear);
    }
    expect(new Set(cards.map((c) => c.cvc?.length))).toEqual(new Set([3, 4]));
    const own = generate(3, { testCards: ["2200000000000053"] }).filter((o) => o.kind === "quasi_ecom");
    for (const order of own)
      expect((order.body.requisites as { number: string }).number).toBe("2200000000000053");
  });

  it("refuse bad options with an error naming the option, never printing a card number whole", () => {
    expect(() => generate(1, { testCards: ["4111111111111112"] })).toThrow(
      /testCards: the card ending 1112 is not/,
    );
    expect(() => generate(1, { testCards: ["4111111111111112"] })).not.toThrow(/4111111111111112/);
    expect(() => generate(1, { callbackUrl: "ftp://example.org/cb" })).toThrow(
      /callbackUrl: "ftp:\/\/example.org\/cb" is not/,
    );
    expect(() => generate(1.5)).toThrow(/seed: must be an integer/);
    expect(() =>
      generate(1, {
        methods: [
          { kind: "mobile_commerce", methodID: 9, currency: "RUB", requiredFields: ["clientMetadata.phon"] },
        ],
      }),
    ).toThrow(/method 9: required field clientMetadata.phon not in the mobile_commerce request/);
  });

  it("follow a profile's maximum lengths, which may name a field of one order kind only", () => {
    const orders = generate(42, { maxLengths: { merchantOrderID: 64, "clientMetadata.name": 40 } });
    const lengths = (path: string) =>
      orders.map((o) => valueAt(o.body, path)).filter((v): v is string => typeof v === "string");
    expect(Math.max(...lengths("merchantOrderID").map((v) => v.length))).toBe(64);
    expect(Math.max(...lengths("clientMetadata.name").map((v) => v.length))).toBe(40);
    expect(() => generate(42, { maxLengths: { "clientMetadata.nam": 40 } })).toThrow(
      /maxLengths.clientMetadata.nam: no field of that path in any request/,
    );
  });

  it("fill a field added to a request schema from its schema, free text included, with no change here", () => {
    const withNote = CreateMobileCommerceOrderRequest.extend({
      note: z.string().min(1).max(40).nullable().optional(),
    });
    const orders = generate(42, { schemas: { mobile_commerce: withNote } }).filter(
      (o) => o.kind === "mobile_commerce",
    );
    const notes = orders.map((o) => valueAt(o.body, "note"));
    expect(notes).toContain(null);
    expect(notes).toContain(undefined);
    expect(notes.some((n) => typeof n === "string" && n.length === 40)).toBe(true);
    expect(notes.some((n) => typeof n === "string" && /[әғқңөұүһі]/.test(n))).toBe(true);
    for (const order of orders) expect(withNote.safeParse(order.body).success).toBe(true);
  });

  it("name only paths the request schemas have as roles", () => {
    const paths = new Set(
      REFERENCE_ORDER_METHODS.flatMap((m) => schemaFields(methodRequestSchema(m)).map((f) => f.path)),
    );
    for (const path of Object.keys(FIELD_ROLES)) expect(paths, path).toContain(path);
  });
});
