/**
 * A report writer: one file of the report set, written as the pieces it yields, one at a time,
 * so that no report is ever held whole. The set's writer (../index.ts) masks each piece on its
 * own before it reaches the disk; a writer only chooses where its pieces begin and end, and never
 * inside a value: a secret is always whole in one piece.
 */
import type { Masker } from "../../../contract/kit/index.ts";
import type { RunAnalysis } from "../../analysis/index.ts";
import type { RunReport } from "../../engine/run-model.ts";
import type { ReportKind } from "../report-files.ts";

/** What a writer writes from: the run, and what was worked out of it before any writing. */
export interface ReportRun {
  report: RunReport;
  analysis: RunAnalysis;
}

/**
 * JSON text whose masking depends on where it stands (a `cvc` key masks its value): a member
 * (`"key": value`) of the object at `at`, or an element of the array at `at` (an array's key
 * being the last of `at`). `at` lists the keys from the document's top, arrays left out.
 */
export interface JsonPiece {
  /** The piece as written: `JSON.stringify(value, null, 2)` at `indent`, after `"key": ` for a member. */
  json: string;
  at: readonly string[];
  member: boolean;
  /** A member's key. */
  key?: string;
  /** The value the text was written from. */
  value: unknown;
  /** What each line after the first begins with. */
  indent: string;
}

/** A piece of a report: markup or JSON punctuation (masked as text), or a JSON member or element. */
export type ReportChunk = string | JsonPiece;

export interface ReportWriter {
  kind: ReportKind;
  fileName: string;
  /** Markup (HTML, XML) is masked as text: none of its pieces may begin as JSON does. */
  format: "json" | "markup";
  chunks(run: ReportRun): Iterable<ReportChunk>;
}

/** Text that would make the masker read a markup piece as JSON. */
const JSON_START = /^\s*[[{]/;

/** A value as JSON.stringify indents it at `indent` (strings hold no raw newline). */
export function jsonAt(value: unknown, indent: string): string {
  const json = JSON.stringify(value, null, 2) as string;
  return indent === "" ? json : json.replaceAll("\n", `\n${indent}`);
}

/**
 * A piece masked as it would be inside its whole report. Its value is masked where it stands
 * (Masker.valueAt: the same as masking its text, without reading the text again), and written
 * again only when masking changed it.
 */
export function maskChunk(masker: Masker, chunk: ReportChunk, format: ReportWriter["format"]): string {
  if (typeof chunk === "string") {
    if (format === "markup" && JSON_START.test(chunk))
      throw new Error(
        `a markup report piece begins as JSON would, and would be masked as JSON: ${chunk.slice(0, 40)}`,
      );
    return masker.text(chunk);
  }
  const [parent, grandparent] = [chunk.at.at(-1), chunk.at.at(-2)];
  if (chunk.member && chunk.key !== undefined) {
    const member = { [chunk.key]: chunk.value };
    const masked = masker.valueAt(member, parent, grandparent);
    if (masked?.value === member) return chunk.json;
    const entries = masked && Object.entries(masked.value as object);
    if (entries?.length === 1) {
      const [[key, value]] = entries as [[string, unknown]];
      return `${JSON.stringify(key)}: ${jsonAt(value, chunk.indent)}`;
    }
    return maskedAsText(masker, chunk);
  }
  if (!chunk.member) {
    const masked = masker.valueAt(chunk.value, parent, grandparent);
    if (masked && Object.is(masked.value, chunk.value)) return chunk.json;
    if (masked) return jsonAt(masked.value, chunk.indent);
  }
  return maskedAsText(masker, chunk);
}

/**
 * A piece's text masked inside objects that give it its keys, unwrapped after; when masking
 * changed those keys (a secret spelled like a field name), the piece alone, which still masks
 * every secret in it.
 */
function maskedAsText(masker: Masker, chunk: JsonPiece): string {
  const prefix = `${chunk.at.map((key) => `{${JSON.stringify(key)}:`).join("")}${chunk.member ? "{" : ""}`;
  const suffix = "}".repeat(chunk.at.length + (chunk.member ? 1 : 0));
  if (prefix === "") return masker.text(chunk.json);
  const masked = masker.text(prefix + chunk.json + suffix);
  if (masked.startsWith(prefix) && masked.endsWith(suffix))
    return masked.slice(prefix.length, masked.length - suffix.length);
  return masker.text(chunk.json);
}
