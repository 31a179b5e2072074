/**
 * The HTML and XML escapes: markup characters escaped, and what reorders or hides text (bidi
 * overrides and isolates, C1 controls) shown as its escape, so a target's answer reads as it is.
 */
import { describe, expect, it } from "vitest";
import { escapeHtml, escapeXml } from "./markup.ts";

const HOSTILE = "pay\u202eDCBA\u202c \u2066x\u2069 \u0085next\u009bline";
const SHOWN = "pay\\u202eDCBA\\u202c \\u2066x\\u2069 \\u0085next\\u009bline";

describe.each([
  ["escapeHtml", escapeHtml],
  ["escapeXml", escapeXml],
])("%s", (_name, escapeText) => {
  it("shows bidi embeddings, overrides, isolates and C1 controls as their escapes", () => {
    expect(escapeText(HOSTILE)).toBe(SHOWN);
    for (let code = 0x80; code <= 0x9f; code++)
      expect(escapeText(String.fromCharCode(code))).toMatch(/^\\u00[89]/);
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069])
      expect(escapeText(String.fromCharCode(code))).toBe(`\\u${code.toString(16)}`);
  });

  it("shows a byte order mark, which a target may put before its answer, as its escape", () => {
    expect(escapeText('\ufeff{"a":1}')).toMatch(/^\\ufeff\{/);
  });

  it("leaves other text as it is: accents, CJK, emoji, right-to-left letters, marks", () => {
    const text = "Zoë 支付 💳 مرحبا שלום \u200d é\u0301";
    expect(escapeText(text)).toBe(text);
  });

  it("escapes markup", () => {
    expect(escapeText('<a href="x">&</a>')).toMatch(/^&lt;a href=&quot;x&quot;&gt;&amp;&lt;\/a&gt;$/);
  });
});
