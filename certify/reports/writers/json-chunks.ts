/**
 * `JSON.stringify(value, null, 2)` in pieces, byte for byte: the members of objects and the
 * elements of arrays down to `depth` levels come one at a time, each serialised whole; below that
 * depth a value is one piece. An array can be given as a {@link JsonArrayStream} to make its
 * elements only as they are written.
 */
import { jsonAt, type ReportChunk } from "./writer.ts";

/** An array whose elements are made as they are written (HAR entries from exchanges and callbacks). */
export class JsonArrayStream {
  constructor(readonly elements: () => Iterable<unknown>) {}
}

/** What JSON.stringify writes for a value after its toJSON, if any. */
function toJsonValue(value: unknown, key: string): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === "function" ? toJSON.call(value, key) : value;
}

const isWritten = (value: unknown) =>
  value !== undefined && typeof value !== "function" && typeof value !== "symbol";

const isContainer = (value: unknown): value is object =>
  typeof value === "object" &&
  value !== null &&
  !(value instanceof Number || value instanceof String || value instanceof Boolean);

function* elementsOf(value: unknown[] | JsonArrayStream): Iterable<unknown> {
  if (value instanceof JsonArrayStream) yield* value.elements();
  // JSON.stringify reads holes as undefined (null), as this does.
  else for (let i = 0; i < value.length; i++) yield value[i];
}

function* container(
  value: object,
  at: readonly string[],
  indent: string,
  depth: number,
): Generator<ReportChunk> {
  const inner = `${indent}  `;
  let first = true;
  if (Array.isArray(value) || value instanceof JsonArrayStream) {
    let index = 0;
    for (const raw of elementsOf(value)) {
      const element = toJsonValue(raw, String(index++));
      yield first ? `[\n${inner}` : `,\n${inner}`;
      first = false;
      if (!isWritten(element)) yield "null";
      else if (depth > 1 && isContainer(element)) yield* container(element, at, inner, depth - 1);
      else yield { json: jsonAt(element, inner), at, member: false, value: element, indent: inner };
    }
    yield first ? "[]" : `\n${indent}]`;
    return;
  }
  for (const [key, raw] of Object.entries(value)) {
    const member = toJsonValue(raw, key);
    if (!isWritten(member)) continue;
    const name = JSON.stringify(key);
    if (depth > 1 && isContainer(member)) {
      // A key alone is masked as text, as the whole report's masking masks a key.
      yield `${first ? "{\n" : ",\n"}${inner}${name}: `;
      yield* container(member, [...at, key], inner, depth - 1);
    } else {
      yield first ? `{\n${inner}` : `,\n${inner}`;
      yield {
        json: `${name}: ${jsonAt(member, inner)}`,
        at,
        member: true,
        key,
        value: member,
        indent: inner,
      };
    }
    first = false;
  }
  yield first ? "{}" : `\n${indent}}`;
}

/** The pieces of `JSON.stringify(value, null, 2)`, then a newline. */
export function* jsonChunks(value: unknown, depth: number): Generator<ReportChunk> {
  const top = toJsonValue(value, "");
  if (depth > 0 && isContainer(top)) yield* container(top, [], "", depth);
  else yield { json: jsonAt(top, ""), at: [], member: false, value: top, indent: "" };
  yield "\n";
}
