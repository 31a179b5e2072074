/**
 * Quasi-ecom orders (api §4.3, §4.4): the creation result, then the confirmation flow. The
 * request carries a test card; every recorded copy of it is masked.
 */
import { fieldsQuasiEcomCreationResult } from "../../contract/index.ts";
import { confirmationTests, creationTests } from "./support/shared-specs.ts";
import { loadSpecTarget } from "./support/target.ts";

const target = loadSpecTarget(import.meta.url);

creationTests(target, "quasi_ecom", {
  fields: fieldsQuasiEcomCreationResult,
  echoField: "merchantOrderID",
  // The same merchantOrderID again through the other order kind: uniqueness is per merchant account.
  duplicateThrough: "mobile_commerce",
});

confirmationTests(target, "quasi_ecom");
