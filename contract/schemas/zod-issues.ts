import type * as z from "zod";

/**
 * One line per problem, each led by the field path it concerns (`requisites.cvc: …`), so that
 * an error message names what was wrong. Unknown keys are named too.
 */
export function describeZodIssues(error: z.ZodError, rootName = "(body)"): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((key) => (path ? `${path}.${key}` : key));
      return `${keys.join(", ")}: unknown key${keys.length > 1 ? "s" : ""}`;
    }
    return `${path || rootName}: ${issue.message}`;
  });
}
