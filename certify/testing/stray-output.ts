/**
 * Test helper: what reaches this process's console while an in-process run goes, other than
 * its `print` lines (a stray console.log, a warning on stderr). A test about the console a
 * user sees scans it too, as a child's captured stdout and stderr would hold it.
 */
const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug"] as const;

export interface StrayOutput {
  /** Everything written meanwhile, in order. */
  text(): string;
  /** Puts the console and the streams back. */
  restore(): void;
}

export function captureStrayOutput(): StrayOutput {
  const chunks: string[] = [];
  const restores: (() => void)[] = [];
  for (const method of CONSOLE_METHODS) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      chunks.push(`${args.map(String).join(" ")}\n`);
      original.apply(console, args);
    };
    restores.push(() => {
      console[method] = original;
    });
  }
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString());
      return (original as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
    restores.push(() => {
      stream.write = original;
    });
  }
  return {
    text: () => chunks.join(""),
    restore: () => {
      for (const restore of restores.reverse()) restore();
    },
  };
}
