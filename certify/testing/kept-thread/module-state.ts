/** State of a module imported by a test file: how often this thread evaluated it. */
export const evaluations = { count: 0 };
evaluations.count += 1;
