/**
 * The shape of k6's end-of-test data (what handleSummary receives, and what the scripts write as
 * JSON): only what h2h-certify reads. k6-safe: types only.
 */

export interface K6SummaryMetric {
  type: "counter" | "gauge" | "rate" | "trend";
  contains?: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface K6SummaryCheck {
  name: string;
  path?: string;
  passes: number;
  fails: number;
}

export interface K6SummaryGroup {
  name: string;
  path?: string;
  groups?: K6SummaryGroup[];
  checks?: K6SummaryCheck[];
}

/** What k6 hands handleSummary (and what the scripts write as JSON): only what is read here. */
export interface K6Summary {
  metrics: Record<string, K6SummaryMetric>;
  root_group?: K6SummaryGroup;
  state?: { testRunDurationMs?: number };
}
