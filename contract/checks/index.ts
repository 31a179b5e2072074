/** Every check, importable from one place; CHECK_REGISTRY lists them by name. */
export * from "./amount-rounding.ts";
export * from "./behaviour.ts";
export * from "./callbacks.ts";
export * from "./check.ts";
export * from "./constraints.ts";
export * from "./conventions.ts";
export * from "./envelope.ts";
export * from "./fields.ts";
export * from "./json-text.ts";
export * from "./lifecycle.ts";
export * from "./order-ids.ts";
export * from "./receiver.ts";
export * from "./root-cause.ts";
export * from "./semantics.ts";
export * from "./size.ts";
