/**
 * Test helper: a small, deliberately broken HTTP target on loopback (huge bodies, echoes, escape
 * sequences, 429s), and a target profile for it: the reference profile with short timeouts so a
 * target that never calls back does not hold a test for minutes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";

export interface HostileTarget {
  url: string;
  requests: number;
  stop(): Promise<void>;
}

export type HostileHandler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

export async function startHostileTarget(handler: HostileHandler): Promise<HostileTarget> {
  const target: HostileTarget = { url: "", requests: 0, stop: async () => undefined };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      target.requests += 1;
      handler(request, Buffer.concat(chunks).toString("utf8"), response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  target.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return target;
}

/** Writes a copy of the reference profile, named and with short timeouts, into `dir`; returns its path. */
export function writeHostileProfile(dir: string, overrides: Record<string, unknown> = {}): string {
  const profile = JSON.parse(readFileSync(REFERENCE_PROFILE_PATH, "utf8")) as Record<string, unknown>;
  const path = join(dir, "hostile-profile.json");
  writeFileSync(
    path,
    JSON.stringify({
      ...profile,
      name: "hostile",
      timeouts: { requestMs: 3_000, callbackMs: 1_000 },
      // A hostile target sends no callback worth a secret: nothing to sign, none to give.
      callbacks: { ...(profile.callbacks as object), signature: { scheme: "none" } },
      ...overrides,
    }),
  );
  return path;
}
