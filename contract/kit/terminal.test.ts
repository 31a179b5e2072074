import { describe, expect, it } from "vitest";
import { colours, terminalSafe } from "./terminal.ts";

describe("terminalSafe", () => {
  it("shows control characters escaped, so a target cannot repaint a line or retitle the terminal", () => {
    const forged = "oops\r\u001b[2K\u001b[32mverdict: CONFORMANT\u001b[0m\u0007\u001b]0;pwned\u0007";
    const safe = terminalSafe(forged, 500);
    expect(safe).toBe("oops\\r\\x1b[2K\\x1b[32mverdict: CONFORMANT\\x1b[0m\\x07\\x1b]0;pwned\\x07");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
    expect(safe).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it("escapes C1 controls, DEL, bidi overrides, line separators and lone surrogates", () => {
    expect(terminalSafe("a\u009bb\u007fc\u202ed\u2028e\ud800f\tg\nh")).toBe(
      "a\\x9bb\\x7fc\\u202ed\\u2028e\\ud800f\\tg\\nh",
    );
    expect(terminalSafe("ünïcødé ✓ 😀")).toBe("ünïcødé ✓ 😀");
  });

  it("shortens with an ellipsis, never cutting an escape or a character in half", () => {
    expect(terminalSafe("abcdef", 6)).toBe("abcdef");
    expect(terminalSafe("abcdefg", 6)).toBe("abcde…");
    expect(terminalSafe("abcd\u001bxyz", 6)).toBe("abcd…");
    expect(terminalSafe("ab😀😀😀", 5)).toBe("ab😀…");
    expect(terminalSafe("x".repeat(10_000_000), 80)).toHaveLength(80);
  });
});

describe("colours", () => {
  it("writes no ANSI codes when the stream is not a terminal", () => {
    const off = colours({ isTTY: false }, {});
    expect(off.enabled).toBe(false);
    expect(off.green("ok")).toBe("ok");
  });

  it("colours a terminal, unless NO_COLOR is set or TERM is dumb", () => {
    expect(colours({ isTTY: true }, {}).red("x")).toBe("\u001b[31mx\u001b[39m");
    expect(colours({ isTTY: true }, { NO_COLOR: "1" }).red("x")).toBe("x");
    expect(colours({ isTTY: true }, { NO_COLOR: "" }).enabled).toBe(true);
    expect(colours({ isTTY: true }, { TERM: "dumb" }).enabled).toBe(false);
  });

  it("FORCE_COLOR turns colour on for a pipe, and FORCE_COLOR=0 off for a terminal", () => {
    expect(colours({ isTTY: false }, { FORCE_COLOR: "1" }).bold("x")).toBe("\u001b[1mx\u001b[22m");
    expect(colours({ isTTY: true }, { FORCE_COLOR: "0" }).enabled).toBe(false);
  });
});
