/**
 * The OpenAPI document generated from the contract and a profile.
 * Other jobs of contract/ and contract/index.ts use this surface; everything else here is internal.
 */
export { buildOpenApiDocument } from "./openapi.ts";
