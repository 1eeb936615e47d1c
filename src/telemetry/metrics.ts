/**
 * Baton's own metrics, through the Temporal Runtime's metric meter: they appear on the same
 * Prometheus endpoint as the SDK's (`temporal_*`), under `baton_*`. Until a process installs the
 * Runtime with an endpoint (`installTemporalRuntime(logger, { metrics })`) every call here is a no-op,
 * so code that records stays the same with metrics off. Names and labels: docs/observability.md.
 */
import type { MetricCounter, MetricGauge, MetricHistogram, MetricMeter } from '@temporalio/common';

/** Seconds; from 5 ms (a loopback call) to a minute (a slow agent's blocking send). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The histogram buckets the Runtime is installed with (the SDK's defaults are too coarse for calls). */
export const HISTOGRAM_BUCKETS: Record<string, number[]> = {
  baton_remote_call_duration_seconds: LATENCY_BUCKETS,
  baton_api_request_duration_seconds: LATENCY_BUCKETS,
  baton_served_request_duration_seconds: LATENCY_BUCKETS,
};

let meter: MetricMeter | undefined;
const made = new Map<string, MetricCounter | MetricHistogram | MetricGauge>();

/** Called once the Runtime exports metrics: from then on, recording counts (undefined: no more). */
export function useMetricMeter(m: MetricMeter | undefined): void {
  meter = m;
  made.clear();
}

/** Whether this process exports metrics. */
export function metricsOn(): boolean {
  return meter !== undefined;
}

function counter(name: string, description: string): MetricCounter | undefined {
  if (!meter) return undefined;
  let c = made.get(name) as MetricCounter | undefined;
  if (!c) made.set(name, (c = meter.createCounter(name, '', description)));
  return c;
}

function histogram(name: string, description: string): MetricHistogram | undefined {
  if (!meter) return undefined;
  let h = made.get(name) as MetricHistogram | undefined;
  if (!h) made.set(name, (h = meter.createHistogram(name, 'float', 's', description)));
  return h;
}

function gauge(name: string, description: string): MetricGauge | undefined {
  if (!meter) return undefined;
  let g = made.get(name) as MetricGauge | undefined;
  if (!g) made.set(name, (g = meter.createGauge(name, 'int', '', description)));
  return g;
}

/** One call to an agent: how long it took, and its failure type when it failed. */
export function recordRemoteCall(tags: { agent: string; binding: string; method: string }, seconds: number, error?: string): void {
  histogram('baton_remote_call_duration_seconds', 'Calls to remote agents, by agent, binding and method')?.record(seconds, tags);
  if (error)
    counter('baton_remote_call_errors', 'Calls to remote agents that failed, by agent, binding, method and error')?.add(1, {
      ...tags,
      error,
    });
}

/** A delegation's labels: its agent, and where it runs, named as Temporal's own series name them. */
export type DelegationLabels = {
  namespace: string;
  task_queue: string;
  workflow_type: string;
  agent: string;
};

/** A delegation started (recorded by the worker, from the workflow's `batonMetrics` sink). */
export function recordDelegationStarted(labels: DelegationLabels): void {
  counter('baton_delegations_started', 'Delegations started, by agent')?.add(1, labels);
}

/** A delegation settled, with its outcome (NONE when it ended without one). */
export function recordDelegationSettled(labels: DelegationLabels & { outcome: string }): void {
  counter('baton_delegations_settled', 'Delegations settled, by agent and outcome')?.add(1, labels);
}

/** Requests waiting for a person, by kind (input, auth, review): the inbox's size. */
export function recordPendingRequests(kind: string, count: number): void {
  gauge('baton_pending_requests', 'Delegations waiting for a person, by kind (the inbox size)')?.set(count, { kind });
}

/** A push notification an agent sent to `baton webhook`: accepted, duplicate, rate_limited or refused. */
export function recordPushReceived(result: 'accepted' | 'duplicate' | 'rate_limited' | 'refused'): void {
  counter('baton_push_received', 'Push notifications from agents taken by the webhook, by result')?.add(1, { result });
}

/**
 * One try at posting a notification to a caller's webhook (serving A2A): delivered, failed (tried
 * again later) or refused (final: a 4xx, or an address Baton may not post to).
 */
export function recordPushDelivery(result: 'delivered' | 'failed' | 'refused'): void {
  counter('baton_push_deliveries', 'Tries at posting push notifications to callers of served agents, by result')?.add(1, { result });
}

/** Artifact bytes written to the store (bytes already there count too: the store renews them). */
export function recordArtifactStored(bytes: number): void {
  counter('baton_artifacts_stored', 'Artifacts written to the artifact store')?.add(1);
  counter('baton_artifact_bytes_stored', 'Bytes written to the artifact store')?.add(bytes);
}

/** One A2A request to a served agent (`baton serve`, `baton ui`), by method and status. */
export function recordServedRequest(method: string, status: number, seconds: number): void {
  histogram('baton_served_request_duration_seconds', 'A2A requests to the agents Baton serves, by method and HTTP status')?.record(
    seconds,
    {
      method,
      status: String(status),
    },
  );
}

/** One request to the HTTP API (`baton ui`), by route pattern and status. */
export function recordApiRequest(tags: { route: string; status: string }, seconds: number): void {
  histogram('baton_api_request_duration_seconds', 'HTTP API requests, by route and status')?.record(seconds, tags);
}
