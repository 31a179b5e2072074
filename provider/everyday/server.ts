/** Serving the app on a port: startEverydayProvider. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { createEverydayApp, type EverydayOptions } from "./app.ts";
import { DEFAULTS } from "./config.ts";

export interface StartOptions extends Omit<EverydayOptions, "signal"> {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningProvider {
  /** http://host:port, no trailing slash. */
  url: string;
  app: Express;
  /** Stops the timers and callbacks, closes every connection and the server. */
  close(): Promise<void>;
}

export async function startEverydayProvider(options: StartOptions = {}): Promise<RunningProvider> {
  const { port = DEFAULTS.port, host = DEFAULTS.host, ...appOptions } = options;
  const controller = new AbortController();
  const app = createEverydayApp({ ...appOptions, signal: controller.signal });
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostInUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostInUrl}:${address.port}`,
    app,
    close: async () => {
      controller.abort();
      const closed = new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
      server.closeAllConnections();
      await closed;
    },
  };
}
