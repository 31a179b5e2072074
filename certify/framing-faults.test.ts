/**
 * An answer with broken HTTP/1.1 framing is named for what is wrong with it, never "cannot reach
 * the target": the target was reached. Each case is a raw-socket target answering every request
 * with one framing fault; the run stops at its first request, exit 2.
 */
import { describe, expect, it } from "vitest";
import { fileTimeout, startRawTarget } from "../fixtures/testing/index.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";

fileTimeout(60_000);

const envelope = '{"data":null,"result":{"status":"error","codeError":"x","x-request-id":"r"}}';
const head = "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n";
const CASES: { name: string; answer: string; says: RegExp }[] = [
  {
    name: "Transfer-Encoding with Content-Length",
    answer: `${head}transfer-encoding: chunked\r\ncontent-length: ${envelope.length}\r\n\r\n${envelope.length.toString(16)}\r\n${envelope}\r\n0\r\n\r\n`,
    says: /both Transfer-Encoding and Content-Length \(RFC 9112 §6\.1/,
  },
  {
    name: "a chunk size that is not hexadecimal",
    answer: `${head}transfer-encoding: chunked\r\n\r\nzz\r\n${envelope}\r\n0\r\n\r\n`,
    says: /a chunk size is not a hexadecimal number \(RFC 9112 §7\.1/,
  },
  {
    name: "obs-fold",
    answer: `${head}x-note: first\r\n  folded\r\ncontent-length: ${envelope.length}\r\n\r\n${envelope}`,
    says: /a header field is folded onto a second line \(obs-fold, RFC 9112 §5\.2/,
  },
  {
    name: "Content-Length twice, the same value",
    answer: `${head}content-length: ${envelope.length}\r\ncontent-length: ${envelope.length}\r\n\r\n${envelope}`,
    says: /its head was refused over its Content-Length, sent more than once or not a number; RFC 9110 §8\.6 lets a client refuse/,
  },
];

describe("framing faults are named, not 'cannot reach the target'", () => {
  for (const { name, answer, says } of CASES) {
    it(name, async () => {
      const target = await startRawTarget(() => ({ write: answer, thenClose: true }));
      try {
        const { exitCode, output, report } = await certifyInProcess({
          H2H_BASE_URL: target.url,
          H2H_API_KEY: "framing-test-key",
        });
        expect(exitCode, output).toBe(2);
        expect(output).not.toContain("cannot reach the target");
        expect(report.errors[0]).toMatch(
          /the target answered, but not in valid HTTP\/1\.1 \(transport fault, framing\)/,
        );
        expect(report.errors[0]).toMatch(says);
        expect(target.requests.length).toBe(1);
      } finally {
        await target.stop();
      }
    });
  }
});

describe("a target that reads the first request and closes without answering", () => {
  it("was reached: the run says it gave no answer, not 'cannot reach the target'", async () => {
    const target = await startRawTarget(() => ({ close: true }));
    try {
      const { exitCode, output, report } = await certifyInProcess({
        H2H_BASE_URL: target.url,
        H2H_API_KEY: "framing-test-key",
      });
      expect(exitCode, output).toBe(2);
      expect(output).not.toContain("cannot reach the target");
      expect(report.errors[0]).toMatch(
        /the target was reached, but closed the connection without an answer \(transport fault, no answer\)/,
      );
      // Read once, never sent again.
      expect(target.requests.length).toBe(1);
    } finally {
      await target.stop();
    }
  });
});
