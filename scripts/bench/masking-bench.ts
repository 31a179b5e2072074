/**
 * How fast a run's masker goes over report text, the last step before each report is written:
 * every report is masked whole (JSON token by token, HTML and other text by pattern). The text is
 * a report of many large answers (5 MB bodies, cut at 64 KB), written as JSON and as
 * HTML, with what reports hold: cards and keys already masked where they were recorded, numbers,
 * ids, URLs and escapes. Medians of repeated runs, in wall time and in CPU time: the CPU time is the
 * cost, and holds on a machine other work loads (where the wall time can grow tenfold).
 */

import { buildMobileCommerceOrderRequest, TEST_CARD } from "../../fixtures/index.ts";
import { runMasker } from "../../run-setup/index.ts";
import { median } from "./measure.ts";

export interface MaskingTiming {
  /** The text's size, MB (10^6 UTF-16 code units). */
  megabytes: number;
  /** Median time to mask it, ms. */
  medianMs: number;
  /** megabytes / median seconds. */
  megabytesPerSecond: number;
  /** Median CPU time (user and system, this process) to mask it, ms. */
  medianCpuMs: number;
  /** megabytes / median CPU seconds. */
  cpuMegabytesPerSecond: number;
  /** Whether masking changed the text (it holds the card once, unmasked, on purpose). */
  changed: boolean;
}

export interface MaskingBenchResult {
  json: MaskingTiming;
  html: MaskingTiming;
  rounds: number;
}

/** A seeded generator, so that every run masks the same text. */
function randomWords(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state;
  };
  const letters = "abcdefghijklmnopqrstuvwxyz";
  return (length: number) => {
    let out = "";
    while (out.length < length) {
      const kind = next() % 10;
      if (kind < 6) for (let i = 0, n = 2 + (next() % 9); i < n; i++) out += letters[next() % 26];
      else if (kind < 8) out += String(next() % 1_000_000);
      else if (kind < 9) out += `${next() % 10_000}.${next() % 100}`;
      else out += `https://example.invalid/p/${next() % 9999}?q=${next() % 99}`;
      out += next() % 7 === 0 ? '", "' : " ";
    }
    return out.slice(0, length);
  };
}

function reportTexts(exchanges: number, bodyChars: number): { json: string; html: string } {
  const words = randomWords(15);
  const request = buildMobileCommerceOrderRequest({ methodID: 1, amount: 150.25 });
  const recorded = JSON.stringify(request).replace(TEST_CARD.number, "************1111");
  const items = Array.from({ length: exchanges }, (_, i) => ({
    name: `semantics.check-${i}`,
    request: { url: `http://127.0.0.1:8080/api/v1/orders/${i}`, body: recorded },
    response: {
      status: 200,
      headers: { "content-type": "application/json", authorization: "Bearer ***" },
      // One answer echoes the card whole: the masker must find it in the middle of it all.
      body: `{"codeError":"0","note":"${i === exchanges >> 1 ? TEST_CARD.number : ""}","pad":"${words(bodyChars)}"}`,
    },
  }));
  const json = JSON.stringify({ exchanges: items }, null, 2);
  const escapeHtml = (text: string) =>
    text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const html = `<!doctype html><html><body>${items
    .map(
      (item) =>
        `<section><h3>${item.name}</h3><pre>${escapeHtml(JSON.stringify(item, null, 2))}</pre></section>`,
    )
    .join("\n")}</body></html>`;
  return { json, html };
}

function timeMasking(mask: (text: string) => string, text: string, rounds: number): MaskingTiming {
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  let changed = false;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    changed = mask(text) !== text;
    const used = process.cpuUsage(cpu);
    samples.push(performance.now() - started);
    cpuSamples.push((used.user + used.system) / 1000);
  }
  const medianMs = median(samples);
  const medianCpuMs = median(cpuSamples);
  const megabytes = text.length / 1e6;
  const perSecond = (ms: number) => Math.round((megabytes / (Math.max(ms, 1) / 1000)) * 10) / 10;
  return {
    megabytes: Math.round(megabytes * 10) / 10,
    medianMs: Math.round(medianMs),
    megabytesPerSecond: perSecond(medianMs),
    medianCpuMs: Math.round(medianCpuMs),
    cpuMegabytesPerSecond: perSecond(medianCpuMs),
    changed,
  };
}

export function runMaskingBench(rounds: number, exchanges = 120): MaskingBenchResult {
  const { json, html } = reportTexts(exchanges, 64 * 1024);
  const masker = runMasker({
    apiKey: "sandbox-key-merchant-1",
    secondApiKey: "sandbox-key-merchant-2",
    callbackSecret: "sandbox-callback-secret",
    sinkToken: "0f3c9a7e5b1d4c2a8e6f0b9d7c5a3e1f",
    baseUrl: "http://127.0.0.1:8080",
  });
  return {
    json: timeMasking((text) => masker.text(text), json, rounds),
    html: timeMasking((text) => masker.text(text), html, rounds),
    rounds,
  };
}
