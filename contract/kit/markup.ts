/**
 * Text made safe to put in the HTML and XML reports (certify's and load's alike). Here, at the
 * bottom, so that every report writer escapes the same way without depending on another's.
 */

/**
 * Characters that reorder or hide text where a reader cannot see them: C1 controls, the bidi
 * embeddings, overrides and isolates, and the byte order mark a target put before its answer. A
 * target's `\u202e` would otherwise show its text reversed.
 */
const INVISIBLE = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Those characters shown as their escape (`\u202e`), the rest as it is. */
function visible(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Text made safe to put in HTML, as element content or as a quoted attribute value. */
export function escapeHtml(text: string): string {
  return visible(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** Text made safe to put in XML 1.0 (JUnit), as element content or as a quoted attribute value. */
export function escapeXml(text: string): string {
  return (
    visible(text)
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
      // Characters XML 1.0 cannot carry at all.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what must go
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, "")
  );
}
