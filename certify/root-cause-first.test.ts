/**
 * The root cause first: two faults (a wrong confirmation code accepted, callback amounts in minor
 * units) fail many rules; the rules that caused the others come first in "failures by rule", the
 * failures an earlier failure of their order explains point at it and are counted as following,
 * and no callback that failed a check is shown as passed in the callback timeline.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RunningReferenceProvider,
  startReferenceProvider,
} from "../fixtures/providers/reference/index.ts";
import { fileTimeout } from "../fixtures/testing/index.ts";
import { failuresByRule } from "./analysis/failures-by-rule.ts";
import { isFailure } from "./engine/run-model.ts";
import { REPORT_FILES } from "./reports/index.ts";
import { certifyInProcess } from "./testing/certify-in-process.ts";

fileTimeout(150_000);

let provider: RunningReferenceProvider;
beforeAll(async () => {
  provider = await startReferenceProvider({
    port: 0,
    faults: ["wrong-code-accepted", "callback-amount-in-minor-units"],
  });
});
afterAll(() => provider?.stop());

describe("a run whose failures have a few causes", () => {
  it("puts the causing rules first, the failures that follow under them, and no failed callback as passed", async () => {
    const run = await certifyInProcess(
      { H2H_BASE_URL: provider.url, H2H_SEED: "4" },
      { reports: ["json", "html"] },
    );
    expect(run.report.verdict, run.output).toBe("not conformant");
    const failures = run.report.checks.filter(isFailure);
    const following = failures.filter((c) => c.followsFrom !== undefined);
    expect(following.length, run.output).toBeGreaterThan(0);
    // Each follows from a failure that changed its order's course, which is itself a root.
    for (const record of following) {
      expect(record.followsFrom?.check).toMatch(/^behaviour\.|^semantics\.status-after-operation$/);
      const cause = failures.find(
        (c) =>
          c.endpoint === record.followsFrom?.endpoint &&
          c.check === record.followsFrom?.check &&
          c.case === record.followsFrom?.case,
      );
      expect(cause, `${record.check} › ${record.case}`).toBeDefined();
      expect(cause?.followsFrom).toBeUndefined();
    }
    expect(following.map((c) => c.followsFrom?.check)).toContain("behaviour.rejects-wrong-code");

    const rules = failuresByRule(run.report.checks);
    const firstFollowOnly = rules.findIndex((r) => r.followOns === r.count);
    const lastWithRoots = rules.findLastIndex((r) => r.followOns < r.count);
    if (firstFollowOnly !== -1) expect(lastWithRoots).toBeLessThan(firstFollowOnly);
    const ranks = rules.map((r) => r.check);
    expect(ranks.indexOf("behaviour.rejects-wrong-code")).toBeGreaterThanOrEqual(0);
    expect(ranks.indexOf("callbacks.matches-order")).toBeGreaterThanOrEqual(0);
    for (const root of ["behaviour.rejects-wrong-code", "callbacks.matches-order"])
      expect(ranks.indexOf(root), `${root} in ${ranks.join(", ")}`).toBeLessThan(
        firstFollowOnly === -1 ? ranks.length : firstFollowOnly,
      );
    expect(run.output).toMatch(
      /failures by rule \(root causes first; \d+ failure\(s\) follow from an earlier failure of their order\):/,
    );

    // The callback timeline: a row whose callbacks a required check failed is never "passed".
    const html = readFileSync(join(run.reportDir, REPORT_FILES.html), "utf8");
    const timeline = html.slice(
      html.indexOf('id="callback-timelines"'),
      html.indexOf("</table>", html.indexOf('id="callback-timelines"')),
    );
    const failedCallbacks = new Set(failures.flatMap((c) => c.callbacks ?? []));
    expect(failedCallbacks.size).toBeGreaterThan(0);
    let judged = 0;
    for (const row of timeline.split("<tr>").slice(1)) {
      const ids = [...row.matchAll(/<details id="(callback-\d+)"/g)].map((m) => m[1]);
      if (!ids.some((id) => failedCallbacks.has(id as string))) continue;
      judged += 1;
      expect(row.startsWith('<td class="passed">'), row.slice(0, 200)).toBe(false);
    }
    expect(judged).toBeGreaterThan(0);
  });
});
