/**
 * Turns the contract specs' tests, as the spec host runs them, into check records, and shows
 * progress on the console while the run goes on: a line per failed check as it fails, and a
 * line per spec file when it ends.
 */
import {
  CHECK_REGISTRY,
  effectiveSource,
  type RequirementContext,
  requirementOf,
  TRANSPORT_FAULT,
} from "../../contract/index.ts";
import type { Masker } from "../../contract/kit/index.ts";
import type { BlockedBy, CheckMeta } from "./run-context.ts";
import { type CheckRecord, isAdvisory, isFailure } from "./run-model.ts";
import { specFileName } from "./spec-pool.ts";
import {
  allSuitesOf,
  allTestsOf,
  type SpecFile,
  type SpecListener,
  type SpecSuite,
  type SpecTest,
  testResultOf,
} from "./spec-tasks.ts";

const CASE_SEPARATOR = " › ";

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 400 ? `${line.slice(0, 397)}...` : line;
}

/** The top-level describe of a test: the endpoint (operation name) it checks. */
function endpointOf(test: SpecTest): string {
  let top: SpecSuite | undefined;
  for (let suite: SpecSuite | undefined = test.suite; suite && suite !== test.file; suite = suite.suite)
    top = suite;
  return top?.name ?? "(all endpoints)";
}

/** An error as the runner records it (serialised: own properties survive). */
interface ReportedError {
  name?: string;
  message?: string;
  exchangeId?: string;
  /** A TransportError's kind (contract/h2h-client.ts). */
  fault?: string;
}

/**
 * Transport faults of an exchange: no check of the contract fails for them. A timeout still fails
 * (the profile bounds the answer's time), and an unknown failure is reported as it was.
 */
const TRANSPORT_FAULT_KINDS: ReadonlySet<string> = new Set(["no answer", "framing", "desync", "unreachable"]);

/**
 * A TransportError (the client's): the exchange got no usable answer; what needed it is not
 * evaluated, counted as an error of the run, never as a failure of the contract.
 */
function transportFaultOf(error: ReportedError | undefined): BlockedBy | undefined {
  if (error?.name !== "TransportError" || !TRANSPORT_FAULT_KINDS.has(error.fault ?? "")) return undefined;
  return {
    check: TRANSPORT_FAULT,
    reason: `transport fault (${error.fault}): ${firstLine(error.message ?? "")}`,
  };
}

/** A PrerequisiteError (run-context.ts) or a transport fault: what the checks waiting on it are blocked by. */
function prerequisiteOf(error: ReportedError | undefined): BlockedBy | undefined {
  const transport = transportFaultOf(error);
  if (transport) return transport;
  if (error?.name !== "PrerequisiteError") return undefined;
  return {
    check: "(setup)",
    reason: firstLine(error.message ?? "the setup failed"),
    ...(error.exchangeId ? { exchange: error.exchangeId } : {}),
  };
}

/**
 * What a collector needs of the run's profile: its informational checks, and the keys its file
 * declares, so that a record without a verdict of its own (a test that threw) is judged on the
 * rule's basis for this profile (a declared advisory rule is required), not the basis as written.
 */
export function collectorRequirementsOf(profile: RequirementContext): RequirementContext {
  return { informationalChecks: profile.informationalChecks, declaredKeys: profile.declaredKeys };
}

export class CheckCollector implements SpecListener {
  readonly records: CheckRecord[] = [];
  private readonly byTest = new Map<string, CheckRecord>();
  /** Errors outside any test (a spec file that did not load, a failing hook). */
  readonly runErrors: string[] = [];

  constructor(
    private readonly masker: Masker,
    private readonly print: (line: string) => void,
    /** The profile's informational checks and declared keys, for a check that could not record its own verdict. */
    private readonly requirements: RequirementContext = { informationalChecks: {} },
  ) {}

  onTest(test: SpecTest): void {
    const record = this.toRecord(test);
    this.records.push(record);
    this.byTest.set(test.id, record);
    // Advisories are no failures: the summary counts them, with what the target did.
    if (isFailure(record)) {
      this.print(
        `  ✗ ${record.endpoint} › ${record.check}${record.case ? ` › ${record.case}` : ""}: ${record.detail}`,
      );
      if (record.reproduction) this.print(`      reproduce: ${record.reproduction.command}`);
    }
  }

  onRunError(message: string): void {
    this.runErrors.push(this.masker.text(firstLine(message)));
  }

  onFileEnd(module: SpecFile): void {
    const file = specFileName(module.filepath);
    const errors = module.result?.errors ?? [];
    for (const error of errors) this.runErrors.push(this.masker.text(`${file}: ${firstLine(error.message)}`));
    this.blockTestsOfFailedSetups(module, file);
    const counts = { passed: 0, failed: 0, advisories: 0, skipped: 0, "not evaluated": 0 };
    for (const test of allTestsOf(module)) {
      const record = this.byTest.get(test.id);
      if (record) counts[isAdvisory(record) ? "advisories" : record.status] += 1;
    }
    const mark = counts.failed > 0 || errors.length > 0 ? "✗" : "✓";
    this.print(
      `${mark} ${file}: ${counts.passed} passed, ${counts.failed} failed, ${counts["not evaluated"]} not evaluated, ${counts.skipped} skipped${
        counts.advisories > 0 ? `, ${counts.advisories} advisories` : ""
      }`,
    );
  }

  /**
   * A describe whose setup (beforeAll) failed leaves its tests skipped, with no reason: that
   * would read as nothing wrong. Its tests are "not evaluated, because …" instead; a
   * PrerequisiteError names the exchange, whose answer the runner then reports as the cause.
   * Any other setup error means the run could not judge the target.
   */
  private blockTestsOfFailedSetups(module: SpecFile, file: string): void {
    for (const suite of allSuitesOf(module)) {
      const [error] = (suite.result?.errors ?? []) as ReportedError[];
      if (!error) continue;
      const blockedBy = prerequisiteOf(error) ?? {
        check: "(setup)",
        reason: firstLine(error.message ?? "the setup failed"),
      };
      blockedBy.reason = this.masker.text(blockedBy.reason);
      // A transport fault is said once for the run by the runner, with the checks it blocked.
      if (!blockedBy.exchange && blockedBy.check !== TRANSPORT_FAULT)
        this.runErrors.push(`${file} › ${suite.name}: the setup failed: ${blockedBy.reason}`);
      for (const test of allTestsOf(suite)) {
        const record = this.byTest.get(test.id);
        if (record?.status !== "skipped" || record.reason) continue;
        record.status = "not evaluated";
        record.detail = `not evaluated, because ${blockedBy.reason}`;
        record.blockedBy = { ...blockedBy };
      }
    }
  }

  private toRecord(test: SpecTest): CheckRecord {
    const meta = test.meta.h2h;
    const result = testResultOf(test);
    const [titleCheck, ...caseParts] = test.name.split(CASE_SEPARATOR);
    const check = meta?.check ?? titleCheck ?? test.name;
    const caseLabel = caseParts.join(CASE_SEPARATOR);
    let status: CheckRecord["status"];
    let detail: string;
    const prerequisite =
      result.state === "failed" ? prerequisiteOf(result.errors?.[0] as ReportedError | undefined) : undefined;
    if (result.state === "skipped" || result.state === "pending") {
      status = "skipped";
      detail = "skipped";
    } else if (prerequisite) {
      // The check could not run: what it needed failed first (reported once, as the cause).
      status = "not evaluated";
      detail = `not evaluated, because ${prerequisite.reason}`;
    } else if (meta?.outcome === "not evaluated") {
      status = "not evaluated";
      detail = meta.detail;
    } else if (result.state === "failed") {
      status = "failed";
      // A check that ran says what it found; anything else (a request that could not be made,
      // a broken setup) is reported by its error's first line.
      detail = meta?.outcome === "failed" ? meta.detail : firstLine(result.errors?.[0]?.message ?? "failed");
    } else {
      status = meta?.outcome === "failed" ? "failed" : "passed";
      detail = meta?.detail ?? "passed";
    }
    // A check that could not run (its setup failed) is judged like any other: a warning stays one.
    const requirement = meta
      ? { required: meta.required, reason: meta.informationalReason }
      : requirementOf(CHECK_REGISTRY.get(check) ?? { name: check, warning: false }, this.requirements);
    const reason =
      result.state === "skipped" ? result.note : requirement.required ? undefined : requirement.reason;
    return {
      endpoint: endpointOf(test),
      check,
      ...(caseLabel ? { case: caseLabel } : {}),
      rule: CHECK_REGISTRY.get(check)?.rule ?? "",
      status,
      required: requirement.required,
      detail: this.masker.text(detail),
      ...(reason ? { reason } : {}),
      durationMs: Math.round(test.result?.duration ?? 0),
      exchanges: meta?.exchanges ?? [],
      source: specFileName(test.file.filepath),
      ...(meta?.timeline ? { timeline: meta.timeline } : {}),
      ...(meta?.reproduction ? { reproduction: meta.reproduction } : {}),
      ...this.evidenceOf(check, meta, prerequisite),
    };
  }

  /** What a check's meta adds to its record: rule source, findings, cause, subject, callbacks. */
  private evidenceOf(
    check: string,
    meta: CheckMeta | undefined,
    prerequisite: BlockedBy | undefined,
  ): Partial<CheckRecord> {
    const written = CHECK_REGISTRY.get(check)?.source;
    // The basis as it stands for this profile (a declared advisory rule is declared), as verify gives it.
    const source = meta?.ruleSource ?? (written ? effectiveSource(written, this.requirements) : undefined);
    const blockedBy = prerequisite ?? meta?.blockedBy;
    return {
      ...(source ? { ruleSource: source } : {}),
      ...(meta?.findings && meta.outcome === "failed" ? { findings: meta.findings } : {}),
      ...(blockedBy ? { blockedBy: { ...blockedBy, reason: this.masker.text(blockedBy.reason) } } : {}),
      ...(meta?.subject ? { subject: meta.subject } : {}),
      ...(meta?.callbacks ? { callbacks: meta.callbacks } : {}),
    };
  }
}
