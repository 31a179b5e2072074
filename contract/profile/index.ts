/**
 * The target's profile: its schema and help, and what follows from one (probes, derived negatives,
 * receiver deliveries).
 * Other jobs of contract/ and contract/index.ts use this surface; everything else here is internal.
 */
export { derivedNegativesOf } from "./derived-negatives.ts";
export {
  MAX_DEADLINE_MS,
  type Profile,
  ProfileError,
  ProfileSchema,
  parseProfile,
  profileJsonSchema,
  readProfile,
} from "./profile.ts";
export { profileKeyDoc } from "./profile-help.ts";
export {
  lifecycleConventionsOf,
  lifetimeSecondsOf,
  orderMethodsOf,
  REFUSED_CREATION,
} from "./profile-probes.ts";
export {
  ADVISORY_MALFORMED_CASES,
  type Delivery,
  forgedDeliveries,
  malformedDeliveries,
  type ReceiverOrder,
  validDeliveries,
  validDelivery,
} from "./receiver-deliveries.ts";
