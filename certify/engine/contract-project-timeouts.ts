/**
 * A setup file of the `contract` Vitest project (vitest.config.ts): each spec file gets the run
 * context the project's global setup provides (the specs read it with `provided`), and the test
 * and hook timeouts certify gives it, from the target's profile, which the config cannot know.
 */
import { inject, vi } from "vitest";
import { RUN_CONTEXT_KEY, specTimeoutsOf } from "./run-context.ts";
import { useVitestProvided } from "./spec-context.ts";

const context = inject(RUN_CONTEXT_KEY);
useVitestProvided({ [RUN_CONTEXT_KEY]: context });
// Without a context, the spec's own loadSpecTarget says how specs are meant to be run.
if (context !== undefined) vi.setConfig(specTimeoutsOf(context.profile));
