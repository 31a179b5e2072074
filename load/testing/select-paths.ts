/**
 * k6's `response.json(selector)` for the GJSON array multipaths the load scripts use, in Node:
 * lets the project's own tests run the load flow without k6 (see load/lib/response-rules.ts).
 */

/**
 * GJSON's array multipath over a body, for runtimes without k6 (the project's own tests): the
 * values at each dotted path, missing ones left out, undefined when the body is not JSON.
 */
export function selectPaths(body: string | null, selector: string): unknown[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body ?? "");
  } catch {
    return undefined;
  }
  const paths = selector.slice(1, -1).split(/(?<!\\),/);
  const values: unknown[] = [];
  for (const path of paths) {
    let value: unknown = json;
    for (const part of path.split(/(?<!\\)\./)) {
      // `#`: an array's length (GJSON gives it for arrays only).
      if (part === "#") {
        value = Array.isArray(value) ? value.length : undefined;
        continue;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        value = undefined;
        break;
      }
      const key = part.replace(/\\(.)/g, "$1");
      value = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value !== undefined) values.push(value);
  }
  return values;
}
