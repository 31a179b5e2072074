/**
 * Stopping the callback dispatcher while its webhook host drops packets (a tunnel that is down):
 * the connects still pending hold no handle, so a certification exits as its verdict is out, not
 * a connect timeout per queued attempt later.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallbackDispatcher } from "./callback-dispatcher.ts";

/** A loopback port whose SYNs are dropped: a stopped process's listener with its backlog full. */
let holder: ChildProcess;
let port: number;
const fillers: Socket[] = [];
beforeAll(async () => {
  holder = spawn(
    process.execPath,
    [
      "-e",
      'require("node:net").createServer().listen({ port: 0, host: "127.0.0.1", backlog: 1 }, function () { console.log(this.address().port) })',
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  port = await new Promise<number>((resolve) =>
    holder.stdout?.once("data", (chunk) => resolve(Number(String(chunk)))),
  );
  holder.kill("SIGSTOP");
  for (let i = 0; i < 4; i++) fillers.push(connect(port, "127.0.0.1").on("error", () => {}));
  await new Promise((resolve) => setTimeout(resolve, 200));
});
afterAll(() => {
  for (const socket of fillers) socket.destroy();
  holder.kill("SIGKILL");
});

const tcpHandles = () => process.getActiveResourcesInfo().filter((name) => name === "TCPSocketWrap").length;

describe("a dispatcher stopped while its webhook host drops packets", () => {
  it("with cutInFlight: returns at once and leaves no socket behind, whatever the attempt timeout", async () => {
    const before = tcpHandles();
    const dispatcher = new CallbackDispatcher({
      retryDelaysMs: [100],
      attemptTimeoutMs: 30_000,
      log: () => {},
    });
    for (let i = 0; i < 30; i++) dispatcher.dispatch(`http://127.0.0.1:${port}/cb/${i}`, { i }, "secret");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tcpHandles()).toBeGreaterThan(before);
    const started = Date.now();
    expect(await dispatcher.stop({ cutInFlight: true })).toMatchObject({ finishedInFlightAttempts: 0 });
    // Far below the 30 s attempt timeout and undici's 10 s connect timeout, on any machine.
    expect(Date.now() - started).toBeLessThan(5_000);
    // Closed handles leave the loop within a few turns of it.
    for (let turn = 0; turn < 20 && tcpHandles() > before; turn++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(tcpHandles()).toBe(before);
  }, 20_000);
});
