/** The sandbox's fixed data: merchants, methods, rates, codes and defaults. */

export interface Merchant {
  apiKey: string;
  merchantID: string;
  name: string;
}

/** The two sandbox merchants. One callback secret signs the callbacks of both. */
export const MERCHANTS = {
  north: { apiKey: "evd_sk_north_4f1c7a2e9b60", merchantID: "EVD-NORTH-0417", name: "North Bazaar" },
  south: { apiKey: "evd_sk_south_8d3b5e0c1a72", merchantID: "EVD-SOUTH-0829", name: "South Market" },
} as const satisfies Record<string, Merchant>;

/** The key that signs every callback (HMAC-SHA256 of the raw body). */
export const CALLBACK_SECRET = "evd_whsec_b71e04c9d25a";

export type OrderKind = "mobile_commerce" | "quasi_ecom";

export interface Method {
  methodID: number;
  kind: OrderKind;
  currency: string;
  /** 1 USDT = usdtRate units of the currency. */
  usdtRate: number;
  minAmount: number;
  maxAmount: number;
  /** Mobile commerce only: what the payment details are. */
  requisiteTypeCode?: string;
  mediatorName?: string;
  requiresClientID: boolean;
  requiresClientMetadata: readonly ("phone" | "operator" | "name" | "email")[];
}

export const METHODS: readonly Method[] = [
  {
    methodID: 501,
    kind: "mobile_commerce",
    currency: "TRY",
    usdtRate: 41.85,
    minAmount: 10,
    maxAmount: 250_000,
    requisiteTypeCode: "payment_link",
    mediatorName: "Everyday Pay TR",
    requiresClientID: false,
    requiresClientMetadata: [],
  },
  {
    methodID: 502,
    kind: "mobile_commerce",
    currency: "INR",
    usdtRate: 88.4,
    minAmount: 100,
    maxAmount: 500_000,
    requisiteTypeCode: "upi_vpa",
    mediatorName: "Everyday UPI",
    requiresClientID: false,
    requiresClientMetadata: ["phone", "name"],
  },
  {
    methodID: 601,
    kind: "quasi_ecom",
    currency: "BRL",
    usdtRate: 5.38,
    minAmount: 5,
    maxAmount: 50_000,
    requiresClientID: false,
    requiresClientMetadata: [],
  },
  {
    methodID: 602,
    kind: "quasi_ecom",
    currency: "MXN",
    usdtRate: 18.62,
    minAmount: 20,
    maxAmount: 200_000,
    requiresClientID: true,
    requiresClientMetadata: [],
  },
];

/** Commission: 3.1 % of the amount. */
export const COMMISSION_RATE = 0.031;

/** orderType of each kind. */
export const ORDER_TYPES: Record<OrderKind, string> = {
  mobile_commerce: "mobile-commerce",
  quasi_ecom: "quasi-ecom",
};

/** The sandbox's confirmation codes: five ASCII digits. */
export const CODES = {
  succeeded: "10101",
  failedByTerminal: "20202",
  appeal: "30303",
  /** Documented as wrong; so is any other five-digit code. */
  wrong: "99999",
} as const;

export const CODE_PATTERN = /^\d{5}$/;

export const DEFAULTS = {
  port: 0,
  host: "127.0.0.1",
  /** An order not confirmed within this is expired. */
  lifetimeMs: 6_000,
  /** From an accepted code to the final status. */
  processingDelayMs: 300,
  /** From failed_by_terminal to succeeded_by_appeal (code 30303). */
  appealDelayMs: 1_000,
  /** Waits between callback attempts, after the previous attempt ended: 4 attempts in all. */
  callbackRetryDelaysMs: [500, 1_000, 2_000] as readonly number[],
  /** An attempt not answered within this counts as failed. */
  callbackTimeoutMs: 3_000,
  callbackHosts: "loopback" as "loopback" | "any",
};
