/**
 * A full garbage collection between two reports. Each report is one
 * string of up to every exchange of the run (limits.maxBodyBytes each), and masking it makes a few
 * more of that size; V8 keeps such large strings until a major collection it may not run before the
 * next report is built, so the peak would be every report's garbage at once. Without the flag
 * (--expose-gc) a new context gets `gc` only when the flag is set before it is made, as here.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | null | undefined;

export function collectGarbage(): void {
  if (gc === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      gc = runInNewContext("gc") as () => void;
    } catch {
      gc = null;
    }
  }
  gc?.();
}
