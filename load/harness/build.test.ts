/**
 * The k6 bundles, tested where no k6 is installed: they build, are small, import nothing but k6's
 * own modules, and — imported in Node with stub k6 modules — set up their scenario and run real
 * create → confirm flows against the reference provider's own handler, checks and metrics included.
 */
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { readProfile } from "../../contract/index.ts";
import { REFERENCE_PROFILE_PATH } from "../../fixtures/profiles/index.ts";
import { createReferenceProvider, type ReferenceProvider } from "../../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../../fixtures/testing/index.ts";
import { installK6Stubs, type K6Recording, type K6Stub, postTo } from "../testing/k6-stubs.ts";
import { type BuiltBundle, buildLoadBundles, scriptNames } from "./build.ts";

fileTimeout(60_000);

let dir: string;
let bundles: BuiltBundle[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "h2h-load-build-"));
  bundles = await buildLoadBundles(await readProfile(REFERENCE_PROFILE_PATH), join(dir, "dist"));
  installK6Stubs(dir);
});

const globals = globalThis as unknown as {
  __ENV?: Record<string, string>;
  open?: (path: string) => string | undefined;
  __VU?: number;
  __K6_STUB__?: K6Stub;
};
const providers: ReferenceProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.stop()));
});

let imports = 0;
/** Imports a bundle as k6 would (init code reads __ENV) and returns its exports. */
async function importBundle(script: string, env: Record<string, string>, faults: string[] = []) {
  // No status change is due within a test, so no callback is sent to the flows' webHook.
  const provider = createReferenceProvider({ faults, processingDelayMs: 600_000 });
  providers.push(provider);
  const recording: K6Recording = { checks: [], metrics: [], requests: [] };
  globals.__ENV = env;
  // k6's first init (the one whose options it reads) runs with __VU 0.
  globals.__VU = 0;
  globals.__K6_STUB__ = { recording, post: postTo(provider), vu: 1, iteration: 0 };
  const copy = join(dir, `${script}-${++imports}.mjs`);
  copyFileSync(join(dir, "dist", `${script}.js`), copy);
  const module = (await import(pathToFileURL(copy).href)) as {
    options: Record<string, unknown>;
    default: () => void;
    handleSummary: (data: unknown) => Record<string, string>;
  };
  const iterate = (count: number) => {
    for (let i = 0; i < count; i++) {
      (globals.__K6_STUB__ as K6Stub).vu = 1 + (i % 2);
      (globals.__K6_STUB__ as K6Stub).iteration = i;
      module.default();
    }
  };
  return { module, recording, iterate };
}

const ENV = {
  H2H_BASE_URL: "http://127.0.0.1:9",
  H2H_API_KEY: "sandbox-key-merchant-1",
  H2H_RUN_ID: "run-test-1",
  H2H_CALLBACK_URL: "http://127.0.0.1:9/callbacks/tok",
};

describe("k6 bundles", () => {
  it("are built for every script, small, and import only k6's own modules", () => {
    expect(bundles.map((b) => b.script)).toEqual(scriptNames());
    expect(scriptNames()).toEqual(["mixed", "mobile-commerce", "quasi-ecom"]);
    for (const bundle of bundles) {
      expect(bundle.bytes, bundle.script).toBeLessThan(64 * 1024);
      const code = readFileSync(bundle.path, "utf8");
      const specifiers = [
        ...code.matchAll(/\bfrom\s*"([^"]+)"/g),
        ...code.matchAll(/\bimport\s*"([^"]+)"/g),
      ].map((m) => m[1]);
      expect(specifiers.length).toBeGreaterThan(0);
      expect(
        specifiers.filter((s) => !/^k6(\/|$)/.test(s ?? "")),
        bundle.script,
      ).toEqual([]);
      expect(code).not.toMatch(/\brequire\(|\bimport\(/);
      expect(code).not.toContain("zod");
    }
  });

  it("set up the chosen scenario with per-endpoint thresholds on the name tag", async () => {
    const { module } = await importBundle("mobile-commerce", {
      ...ENV,
      H2H_SCENARIO: "load",
      H2H_RATE: "20",
      H2H_DURATION: "1m",
    });
    expect(module.options).toMatchObject({
      scenarios: { load: { executor: "constant-arrival-rate", rate: 20, duration: "1m", timeUnit: "1s" } },
      thresholds: {
        "http_req_failed{h2h_request:api}": ["rate<0.01"],
        checks: ["rate>0.99"],
        "http_req_duration{name:createMobileCommerceOrder,expected_response:true}": ["p(95)<500"],
        "http_req_duration{name:confirmMobileCommerceOrder,expected_response:true}": ["p(95)<500"],
      },
    });
  });

  // H2H_CLIENT_CERT / H2H_CLIENT_KEY reach k6's tlsAuth through the script's open().
  it.each(scriptNames())("%s: reads the client certificate and key into k6's tlsAuth", async (script) => {
    const files: Record<string, string> = {
      "/tls/client.pem": "-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n",
      "/tls/client.key": "-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----\n",
    };
    globals.open = (path: string) => {
      if (!(path in files)) throw new Error(`open: no file ${path}`);
      return files[path];
    };
    try {
      const { module } = await importBundle(script, {
        ...ENV,
        H2H_CLIENT_CERT: "/tls/client.pem",
        H2H_CLIENT_KEY: "/tls/client.key",
        H2H_CLIENT_KEY_PASSPHRASE: "pw",
      });
      expect(module.options.tlsAuth).toEqual([
        { cert: files["/tls/client.pem"], key: files["/tls/client.key"], password: "pw" },
      ]);
      const plain = await importBundle(script, ENV);
      expect(plain.module.options.tlsAuth).toBeUndefined();
    } finally {
      delete globals.open;
    }
  });

  it("run create → confirm flows whose every check passes against the reference behaviour", async () => {
    const { module, recording, iterate } = await importBundle("mobile-commerce", ENV);
    iterate(6);
    // Per operation: success and status on all 6 answers, every field on a VU's first 3.
    expect(recording.checks.length).toBe(2 * (6 + 3));
    expect(recording.checks.filter((c) => !c.passed)).toEqual([]);
    // Each confirmed order is followed by its trigger note to the sink, tagged apart from the API.
    expect(recording.requests.map((r) => r.tags?.name)).toEqual(
      Array(6).fill(["createMobileCommerceOrder", "confirmMobileCommerceOrder", "h2h_trigger_note"]).flat(),
    );
    expect(new Set(recording.requests.map((r) => r.tags?.h2h_request))).toEqual(new Set(["api", "note"]));
    const noteUrls = recording.requests.filter((r) => r.tags?.h2h_request === "note").map((r) => r.url);
    expect(noteUrls).toHaveLength(6);
    for (const url of noteUrls)
      expect(url).toMatch(
        /^http:\/\/127\.0\.0\.1:9\/callbacks\/tok\/run\/run-test-1\/at\/\d+\/expect\/succeeded\/order\/[\w-]+\/triggered\/\d+$/,
      );
    const confirmed = recording.metrics.filter((m) => m.metric === "h2h_confirmed_succeeded");
    expect(confirmed).toHaveLength(6);
    // One custom sample per iteration, no more.
    expect(recording.metrics).toHaveLength(6);
    // The raw URL (it holds the order id) is never a tag.
    for (const request of recording.requests.filter((r) => r.tags?.h2h_request === "api"))
      expect(Object.values(request.tags ?? {}).join()).not.toContain("/api/");
    expect(module.handleSummary({ metrics: {} })).toHaveProperty("stdout");
  });

  it("mix both order kinds and the failure and appeal codes by the configured shares", async () => {
    const { recording, iterate } = await importBundle("mixed", {
      ...ENV,
      H2H_MOBILE_SHARE: "0.5",
      H2H_FAILURE_SHARE: "0.3",
      H2H_APPEAL_SHARE: "0.3",
    });
    iterate(60);
    expect(recording.checks.filter((c) => !c.passed)).toEqual([]);
    const kinds = new Set(
      recording.requests.filter((r) => r.tags?.h2h_request === "api").map((r) => r.tags?.name),
    );
    expect(kinds).toEqual(
      new Set([
        "createMobileCommerceOrder",
        "confirmMobileCommerceOrder",
        "createQuasiEcomOrder",
        "confirmQuasiEcomOrder",
      ]),
    );
    const finals = new Set(recording.metrics.map((m) => m.metric));
    expect(finals).toEqual(
      new Set([
        "h2h_confirmed_succeeded",
        "h2h_confirmed_failed_by_terminal",
        "h2h_confirmed_succeeded_by_appeal",
      ]),
    );
  });

  it("fail their checks and count business errors when the target breaks the contract", async () => {
    const { recording, iterate } = await importBundle("mobile-commerce", ENV, ["amount-as-string"]);
    iterate(3);
    expect([...new Set(recording.checks.filter((c) => !c.passed).map((c) => c.name))]).toEqual([
      "createMobileCommerceOrder: every required field of the right type",
    ]);
    const wrongKey = await importBundle("quasi-ecom", { ...ENV, H2H_API_KEY: "wrong" });
    wrongKey.iterate(2);
    expect(
      wrongKey.recording.metrics
        .filter((m) => m.metric === "h2h_business_errors")
        .map((m) => m.tags?.codeError),
    ).toEqual(["unauthorized", "unauthorized"]);
  });

  it("stop at init with a message naming a bad variable", async () => {
    await expect(importBundle("mobile-commerce", { ...ENV, H2H_SCENARIO: "marathon" })).rejects.toThrow(
      /H2H_SCENARIO="marathon"/,
    );
    await expect(importBundle("mobile-commerce", { ...ENV, H2H_RUN_ID: "" })).rejects.toThrow(/H2H_RUN_ID/);
  });
});
