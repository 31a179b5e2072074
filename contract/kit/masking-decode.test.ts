import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DECODE_TRIGGER,
  decodeLayer,
  decodeLayers,
  MAX_DECODE_LAYERS,
  originalSpan,
} from "./masking-decode.ts";

describe("the decoded view masking searches", () => {
  it("decodes entities, percent escapes and backslash escapes, one layer at a time", () => {
    expect(decodeLayer("a&#x2d;b&#45;c&#X2D;d&#0045;e&#x0000002d;f")?.text).toBe("a-b-c-d-e-f");
    // A numeric entity's semicolon may be left out, as HTML allows.
    expect(decodeLayer("&#52&#49&#x31;1")?.text).toBe("4111");
    expect(decodeLayer("&nbsp;&thinsp;&ndash;&amp;&lowbar;&commat;")?.text).toBe("\u00a0\u2009\u2013&_@");
    expect(decodeLayer("%41%c3%a9%E2%80%93%F0%9F%98%80")?.text).toBe("Aé\u2013😀");
    expect(decodeLayer(String.raw`\u0041\x42\"\\\/\t`)?.text).toBe('AB"\\/\t');
    // No escape, or what only looks like one: nothing to decode, or left as written.
    expect(decodeLayer("plain text, 100% & more")).toBeUndefined();
    expect(decodeLayer("%C3 %C3%C3 &bogus; &#x110000; %zz")).toBeUndefined();
  });

  it("goes on to a fixed point, and no deeper than its bound", () => {
    let spelled = "Zk7Q-apikey";
    for (let i = 0; i < 3; i++) spelled = encodeURIComponent(spelled).replace(/-/g, "%2D");
    const layers = decodeLayers(spelled);
    expect(layers.map((layer) => layer.text)).toEqual(["Zk7Q%252Dapikey", "Zk7Q%2Dapikey", "Zk7Q-apikey"]);
    const mixed = "&amp;#x25;32%26%2352%3B"; // `&#x25;` under `&amp;`, then an entity under percent
    expect(decodeLayers(mixed).at(-1)?.text).toBe("24");
    let deep = "4";
    for (let i = 0; i < MAX_DECODE_LAYERS + 2; i++) deep = encodeURIComponent(deep === "4" ? "%34" : deep);
    expect(decodeLayers(deep)).toHaveLength(MAX_DECODE_LAYERS);
  });

  it("maps every decoded character back to exactly the text it was written as", () => {
    const text = "x=Zk7Q&amp;#x2d;api%252Dkey\\u0021";
    const layers = decodeLayers(text);
    const last = layers.length - 1;
    const view = layers[last]?.text as string;
    expect(view).toBe("x=Zk7Q-api-key!");
    const span = (from: number, to: number) => {
      const [a, b] = originalSpan(layers, last, from, to);
      return text.slice(a, b);
    };
    expect(span(view.indexOf("-"), view.indexOf("-") + 1)).toBe("&amp;#x2d;");
    expect(span(view.lastIndexOf("-"), view.lastIndexOf("-") + 1)).toBe("%252D");
    expect(span(2, view.length)).toBe("Zk7Q&amp;#x2d;api%252Dkey\\u0021");
    expect(span(0, 2)).toBe("x=");
  });

  it("maps spans back for any text built of escapes and plain characters (property)", () => {
    // Each piece decodes to one known character: the span of each must be that piece.
    const pieces: [string, string][] = [
      ["a", "a"],
      ["%41", "A"],
      ["%2541", "%41"],
      ["&#52;", "4"],
      ["&amp;", "&"],
      ["\\u0042", "B"],
      ["%E2%80%93", "\u2013"],
      ["&nbsp;", "\u00a0"],
      ["-", "-"],
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 30 }), (chosen) => {
        const text = chosen.map(([written]) => written).join("");
        const layer = decodeLayer(text);
        const view = layer?.text ?? text;
        expect(view).toBe(chosen.map(([, decoded]) => decoded).join(""));
        if (!layer) return;
        let at = 0;
        for (const [written, decoded] of chosen) {
          const [a, b] = originalSpan([layer], 0, at, at + decoded.length);
          expect(text.slice(a, b)).toBe(written);
          at += decoded.length;
        }
      }),
      { numRuns: 500, seed: 24 },
    );
  });

  it("starts a layer only at an escape a secret can hide behind, not at the entities every report has", () => {
    const test = (text: string) => new RegExp(DECODE_TRIGGER.source).test(text);
    for (const text of ["&quot;a&quot; &amp; &lt;b&gt; &apos;", 'a \\" b \\\\ c \\n', "100% done", "a&b"])
      expect(test(text), text).toBe(false);
    for (const text of ["&#52;", "&#x2d;", "&amp;#52;", "&amp;quot;", "&nbsp;", "%34", "\\u0034", "4\\t1"])
      expect(test(text), text).toBe(true);
  });
});
