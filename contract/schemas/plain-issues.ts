/**
 * Schema problems in plain words: each one a typed {@link Finding} with the field path, what was
 * expected and what was found ("data.merchantID is missing: expected a string"), never zod's own
 * wording ("Invalid input: expected string, received undefined"). A union that nothing matched
 * says which of its forms the value looks like; an unknown key gets the nearest known one.
 */
import type * as z from "zod";

/** One problem with one value: where, what was expected, what was found. */
export interface Finding {
  /** Dotted path from the root the caller names (`data.paymentDetailsData.methodID`). */
  path: string;
  /** What the rule wants, in words: "a string", "one of "hex", "base64"". */
  expected: string;
  /** What was there, in words: "missing", "the string "201"", "the number -1". */
  actual: string;
  /** A way to fix it, when one is known: "did you mean "sandboxClock"?". */
  hint?: string;
  /** A rule across fields that failed ("5 is below minAmount 10"), said as it is instead of `expected`. */
  problem?: string;
}

export interface PlainIssueOptions {
  /** Prefix of every path (`data`); the root itself is named by it, or by `rootName`. */
  root?: string;
  /** The root's name when there is no prefix (default "(root)"). */
  rootName?: string;
  /** The keys an object at a path may have, for "did you mean" on an unknown key. */
  keysAt?: (path: readonly PropertyKey[]) => readonly string[] | undefined;
  /** A description of the value at a path, added to a "missing" finding's expectation. */
  describe?: (path: readonly PropertyKey[]) => string | undefined;
}

type Issue = z.core.$ZodIssue;

const MAX_SHOWN = 60;

/** A value as a person reads it in a finding. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (typeof value === "string") {
    const text = JSON.stringify(value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN - 3)}...` : value);
    return value === "" ? "an empty string" : `the string ${text}`;
  }
  if (typeof value === "number") return Number.isFinite(value) ? `the number ${value}` : String(value);
  if (typeof value === "boolean") return `${value}`;
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : `an array of ${value.length}`;
  if (typeof value === "object") {
    const keys = Object.keys(value);
    return keys.length === 0
      ? "an empty object"
      : `an object with ${keys.slice(0, 4).join(", ")}${keys.length > 4 ? ", ..." : ""}`;
  }
  return typeof value;
}

function readAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
  bigint: "an integer",
  date: "a date",
};

const show = (value: unknown) => JSON.stringify(value);

function bound(issue: { origin: string; inclusive?: boolean }, limit: unknown, below: boolean): string {
  const inclusive = issue.inclusive ?? true;
  if (issue.origin === "string")
    return `${below ? "at least" : "at most"} ${limit} character${limit === 1 ? "" : "s"}`;
  if (issue.origin === "array" || issue.origin === "set")
    return `${below ? "at least" : "at most"} ${limit} element${limit === 1 ? "" : "s"}`;
  const sign = below ? (inclusive ? "≥" : ">") : inclusive ? "≤" : "<";
  return `a number ${sign} ${limit}`;
}

/** What an issue expected, in words. */
function expectation(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return TYPE_WORDS[issue.expected] ?? `a ${issue.expected}`;
    case "invalid_value":
      return issue.values.length === 1
        ? show(issue.values[0])
        : `one of ${issue.values.map((v) => show(v)).join(", ")}`;
    case "too_small":
      return bound(issue, issue.minimum, true);
    case "too_big":
      return bound(issue, issue.maximum, false);
    case "invalid_format":
      return issue.format === "regex" && issue.pattern
        ? `text matching ${issue.pattern}`
        : `a valid ${issue.format}`;
    case "not_multiple_of":
      return `a multiple of ${issue.divisor}`;
    default:
      return issue.message;
  }
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        previous + (a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1),
      );
      previous = current;
    }
  }
  return row[b.length] as number;
}

/**
 * The known name nearest to a mistyped one, when one is near enough: a close spelling, a
 * different case, or one that contains the other (`wait` → `waitSeconds`); the closest spelling wins.
 */
export function nearestName(given: string, known: readonly string[]): string | undefined {
  const lower = given.toLowerCase();
  let best: { name: string; score: number } | undefined;
  for (const name of known) {
    if (name === given) continue;
    const other = name.toLowerCase();
    const contains = lower.length >= 3 && (other.includes(lower) || lower.includes(other));
    // A containment counts as near, but a spelling one edit away is nearer (`load-build` → `load:build`).
    const score = Math.min(distance(given, name), contains ? 1.5 : Number.POSITIVE_INFINITY);
    if (score <= Math.max(2, Math.floor(given.length / 3)) && (!best || score < best.score))
      best = { name, score };
  }
  return best?.name;
}

interface Context {
  input: unknown;
  options: PlainIssueOptions;
}

function pathText(options: PlainIssueOptions, path: readonly PropertyKey[]): string {
  const inner = path.map(String).join(".");
  if (!options.root) return inner || (options.rootName ?? "(root)");
  return inner ? `${options.root}.${inner}` : options.root;
}

/** The keys an alternative of a union knows, told by its issues: those it misses or refused. */
function keysOfAlternative(issues: readonly Issue[], base: readonly PropertyKey[]) {
  const required = new Set<string>();
  const refused = new Set<string>();
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys" && issue.path.length === 0) {
      for (const key of issue.keys) refused.add(key);
    } else if (issue.path.length === 1 && issue.code === "invalid_type" && issue.path[0] !== undefined) {
      required.add(String(issue.path[0]));
    }
  }
  return { required, refused, base };
}

function unionFindings(
  issue: Extract<Issue, { code: "invalid_union" }>,
  at: readonly PropertyKey[],
  context: Context,
): Finding[] {
  const value = readAt(context.input, at);
  const path = pathText(context.options, at);
  // A discriminated union whose discriminator matched nothing: name the values it takes.
  if (issue.errors.length === 0) {
    const options = (issue as { options?: unknown[] }).options ?? [];
    const given = readAt(context.input, at);
    const nearest = typeof given === "string" ? nearestName(given, options.map(String)) : undefined;
    return [
      {
        path,
        expected: options.length > 0 ? `one of ${options.map((o) => show(o)).join(", ")}` : issue.message,
        actual: describeValue(given),
        ...(nearest ? { hint: `did you mean ${show(nearest)}?` } : {}),
      },
    ];
  }
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
  // A union of plain values (true, false or "required"): what each alternative expected, together.
  if (!isObject) {
    const expected = issue.errors
      .map((issues) =>
        issues
          .filter((inner) => inner.path.length === 0)
          .map(expectation)
          .join(" and "),
      )
      .filter((text) => text !== "");
    return [{ path, expected: [...new Set(expected)].join(" or "), actual: describeValue(value) }];
  }
  const given = Object.keys(value);
  const alternatives = issue.errors.map((issues) => ({ issues, ...keysOfAlternative(issues, at) }));
  // The form meant: one that knows a key the value has, with the fewest problems.
  const meant = alternatives
    .filter((alternative) => given.some((key) => !alternative.refused.has(key) && key !== "$comment"))
    .sort((a, b) => a.issues.length - b.issues.length);
  const forms = alternatives.map((a) => `{ ${[...a.required].join(", ") || "..."} }`);
  if (
    meant.length > 0 &&
    (meant.length === 1 ||
      (meant[1] as { issues: Issue[] }).issues.length > (meant[0] as { issues: Issue[] }).issues.length)
  ) {
    const chosen = meant[0] as (typeof alternatives)[number];
    const form = `{ ${[...chosen.required].join(", ")} }`;
    return chosen.issues
      .flatMap((inner) => findingsOfIssue({ ...inner, path: [...at, ...inner.path] } as Issue, context))
      .map((finding) => ({
        ...finding,
        hint: [finding.hint, `read as the ${form} form`].filter(Boolean).join("; "),
      }));
  }
  // No form fits: list them, and suggest a known key for each unknown one.
  const known = [...new Set(alternatives.flatMap((a) => [...a.required]))];
  const suggestions = given
    .filter((key) => key !== "$comment" && !known.includes(key))
    .map((key) => [key, nearestName(key, known)] as const)
    .filter((pair): pair is readonly [string, string] => pair[1] !== undefined)
    .map(([key, name]) => `"${key}": did you mean ${show(name)}?`);
  return [
    {
      path,
      expected: `one of the forms ${forms.join(", ")}`,
      actual: describeValue(value),
      ...(suggestions.length > 0 ? { hint: suggestions.join("; ") } : {}),
    },
  ];
}

function findingsOfIssue(issue: Issue, context: Context): Finding[] {
  const { options } = context;
  const at = issue.path;
  if (issue.code === "invalid_union") return unionFindings(issue, at, context);
  if (issue.code === "unrecognized_keys") {
    const known = options.keysAt?.(at) ?? [];
    return issue.keys.map((key) => {
      const nearest = nearestName(key, known);
      return {
        path: pathText(options, [...at, key]),
        expected: "no such key",
        actual: "an unknown key",
        ...(nearest
          ? { hint: `did you mean ${show(nearest)}?` }
          : known.length > 0
            ? { hint: `known keys: ${known.join(", ")}` }
            : {}),
      };
    });
  }
  if ((issue.code === "invalid_element" || issue.code === "invalid_key") && "issues" in issue) {
    return issue.issues.flatMap((inner) =>
      findingsOfIssue({ ...inner, path: [...at, ...inner.path] } as Issue, context),
    );
  }
  const actual = describeValue(readAt(context.input, at));
  if (issue.code === "custom")
    return [{ path: pathText(options, at), expected: "", actual, problem: issue.message }];
  const description = actual === "missing" ? options.describe?.(at) : undefined;
  return [
    {
      path: pathText(options, at),
      expected: `${expectation(issue)}${description ? ` (${description})` : ""}`,
      actual,
    },
  ];
}

/** Every problem a failed parse found, as plain findings; `input` is what was parsed. */
export function plainFindings(error: z.ZodError, input: unknown, options: PlainIssueOptions = {}): Finding[] {
  return error.issues.flatMap((issue) => findingsOfIssue(issue, { input, options }));
}

/** One finding as a line: `path is the string "x": expected a number (hint)`. */
export function describeFinding(finding: Finding): string {
  const found =
    finding.actual === "missing"
      ? `${finding.path} is missing`
      : finding.actual === "an unknown key"
        ? `${finding.path} is not a known key`
        : `${finding.path} is ${finding.actual}`;
  const wanted =
    finding.problem !== undefined
      ? `: ${finding.problem}`
      : finding.expected === "no such key"
        ? ""
        : `: expected ${finding.expected}`;
  return `${found}${wanted}${finding.hint ? ` (${finding.hint})` : ""}`;
}
