import { expect, it } from "vitest";
import { isLoopbackUrl } from "./loopback.ts";

it("tells a loopback base URL from a remote one", () => {
  for (const url of [
    "http://127.0.0.1:8080",
    "http://localhost:3000/h2h",
    "https://[::1]:8443",
    "http://127.3.0.9",
  ])
    expect(isLoopbackUrl(url), url).toBe(true);
  for (const url of ["https://sandbox.example.com", "http://10.0.0.5:8080", "http://128.0.0.1", "not a url"])
    expect(isLoopbackUrl(url), url).toBe(false);
});
