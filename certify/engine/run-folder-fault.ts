/** What a run's temporary folder failed to keep (a full TMPDIR), said once for certify and the receiver battery. */
import { type RecordedEvidence, readWriteFailures } from "../../contract/index.ts";

/**
 * Why the run's temporary folder does not hold all of its records, in one line naming the files,
 * or undefined: records the disk refused (marked files), lines torn. Evidence missing for such a
 * cause is the run's fault, never the target's. (Callbacks the sink could not store are the sink's
 * refusals to report.)
 */
export function runFolderFault(
  runDir: string,
  recorded: Pick<RecordedEvidence, "unreadable">,
): string | undefined {
  const failures = readWriteFailures(runDir);
  const { unreadable } = recorded;
  if (failures.length === 0 && unreadable.length === 0) return undefined;
  const [failure] = failures;
  const [torn] = unreadable;
  const parts = [
    ...(failure
      ? [
          `${failure.code} writing ${failure.file}${failures.length > 1 ? ` (and ${failures.length - 1} more file(s))` : ""}: the records after it are missing`,
        ]
      : []),
    ...(torn
      ? [`${unreadable.length} record(s) unreadable, first ${torn.file} line ${torn.line} (${torn.error})`]
      : []),
  ];
  return (
    `the run's temporary folder ${runDir} could not keep its records: ${parts.join("; ")}. ` +
    "The reports hold what was kept and the run is not judged on it; free space in TMPDIR, or set TMPDIR to a folder on another disk"
  );
}
