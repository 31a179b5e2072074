import { describe, expect, it } from "vitest";
import { createMasker, maskCardNumber } from "./masking.ts";

const masker = createMasker({
  secrets: ["sandbox-key-merchant-1", "sandbox-key-merchant-2", "sandbox-callback-secret", undefined],
  cardNumbers: ["4111111111111111"],
});

describe("masking", () => {
  it("keeps only the last 4 digits of a card number", () => {
    expect(maskCardNumber("4111111111111111")).toBe("************1111");
    expect(masker.text('{"number":"4111111111111111"}')).toBe('{"number":"************1111"}');
  });

  it("masks a Luhn-valid card-like number the suite did not send, and leaves other digit runs alone", () => {
    expect(masker.text("echo 5555555555554444 end")).toBe("echo ************4444 end");
    expect(masker.text("order 1234567890123 and ts 1763780400000")).toBe(
      "order 1234567890123 and ts 1763780400000",
    );
  });

  it("masks a CVC by its key, whatever its value", () => {
    expect(masker.text('{"cvc":"123","cvcHint":"x"}')).toBe('{"cvc":"***","cvcHint":"x"}');
    expect(masker.text('{"CVC": 9876}')).toBe('{"CVC": "***"}');
  });

  it("masks API keys and the callback secret anywhere, and bearer tokens", () => {
    const line =
      "key sandbox-key-merchant-2 and secret=sandbox-callback-secret; Authorization: Bearer other-token";
    expect(masker.text(line)).toBe("key *** and secret=***; Authorization: Bearer ***");
  });

  it("keeps JSON valid: a bearer token inside an escaped string, and a CVC inside a nested JSON string", () => {
    const report = JSON.stringify({
      message: 'use "Authorization: Bearer <API_KEY>"',
      body: JSON.stringify({ cvc: "123" }),
    });
    const masked = masker.text(report);
    expect(() => JSON.parse(masked)).not.toThrow();
    expect(JSON.parse(masked)).toEqual({ message: 'use "Authorization: Bearer ***"', body: '{"cvc":"***"}' });
  });

  it("leaves a reference to an environment variable after Bearer alone, quoted, HTML-escaped or bare", () => {
    for (const line of [
      '--oauth2-bearer "$H2H_API_KEY"',
      "--oauth2-bearer &quot;$H2H_API_KEY&quot;",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell's ${NAME}, not a template
      "Authorization: Bearer ${H2H_API_KEY_2}",
    ])
      expect(masker.text(line)).toBe(line);
    // A token that merely starts like one is still masked.
    expect(masker.text("Authorization: Bearer $H2H_API_KEYabc-secret-rest")).toBe(
      "Authorization: Bearer ***",
    );
    expect(masker.text("Bearer $lower-case-token")).toBe("Bearer ***");
  });

  it("masks Authorization headers keeping the scheme", () => {
    expect(
      masker.headers({ authorization: "Bearer sandbox-key-merchant-1", "content-type": "application/json" }),
    ).toEqual({
      authorization: "Bearer ***",
      "content-type": "application/json",
    });
  });
});
