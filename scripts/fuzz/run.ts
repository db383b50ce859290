import { setTimeout as sleep } from 'node:timers/promises';
import { createCaseGenerator, type FuzzCase } from './generate.js';
import { operationsOf } from './operations.js';
import { isErrorShape, sendRaw, type RawOutcome } from './raw-http.js';
import { startRegistry, startRuntime, type RunningService } from './services.js';

export type ProblemKind = '5xx' | '4xx outside the {error} shape' | 'closed with no answer' | 'process left running';

/** One class of problem: same service, operation, mutation and outcome; the shortest request as its reproduction. */
export interface Problem {
  kind: ProblemKind;
  operation: string;
  mutation: string;
  count: number;
  /** The request as sent (long runs of one character shortened), to replay with `printf '...' | nc`. */
  request: string;
  outcome: string;
  /** What the service logged for the request, when it logged an error. */
  serverLog?: string;
}

export interface ServiceReport {
  requests: number;
  answers: Record<string, number>;
  serverErrors: number;
  badErrorBodies: number;
  noAnswer: number;
  /** Processes still running after every workload was deleted (the runtime only). */
  leakedProcesses?: number;
  problems: Problem[];
}

export interface FuzzReport {
  seed: number;
  requestsPerService: number;
  services: Record<string, ServiceReport>;
  problems: number;
}

/** Shows a request so a person can read it and paste it: escapes, and `x{5000}` for long runs. */
function showRequest(payload: Buffer): string {
  return shorten(JSON.stringify(payload.toString('latin1')).slice(1, -1), Number.POSITIVE_INFINITY);
}

/** Long runs of one character as `x{5000}`, then at most `limit` characters. */
function shorten(text: string, limit: number): string {
  let shown = '';
  for (let start = 0; start < text.length; ) {
    let end = start + 1;
    while (text[end] === text[start]) end += 1;
    shown += end - start >= 50 ? `${text[start] ?? ''}{${String(end - start)}}` : text.slice(start, end);
    start = end;
  }
  return shown.length > limit ? `${shown.slice(0, limit)}...` : shown;
}

function describeOutcome(outcome: RawOutcome): string {
  if (outcome.kind === 'no-answer') return outcome.detail;
  return `${String(outcome.response.status)} ${outcome.response.headers['content-type'] ?? '(no content-type)'} ${shorten(outcome.response.body, 300)}`;
}

function judge(fuzzCase: FuzzCase, outcome: RawOutcome): ProblemKind | undefined {
  if (outcome.kind === 'no-answer') return 'closed with no answer';
  const { status } = outcome.response;
  if (status >= 500) return '5xx';
  if (status >= 400 && !fuzzCase.head && !isErrorShape(outcome.response)) return '4xx outside the {error} shape';
  return undefined;
}

/** The error a service logged for a request id, if any (its JSON log lines carry `reqId`/`requestId`). */
function loggedError(log: string, requestId: string): string | undefined {
  for (const line of log.split('\n')) {
    if (!line.includes(`"${requestId}"`)) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string; stack?: string } };
      if ((entry.level ?? 0) >= 40) return `${entry.msg ?? ''}: ${entry.err?.stack?.split('\n').slice(0, 4).join(' | ') ?? entry.err?.message ?? ''}`;
    } catch {
      // not a log line of the service
    }
  }
  return undefined;
}

/** Deletes every workload, waits for them to go, and returns the processes still running. */
async function removeWorkloads(service: RunningService): Promise<{ pid: number; command: string }[]> {
  const api = `http://127.0.0.1:${String(service.port)}/api/v1beta/workloads`;
  const names = async () => ((await (await fetch(`${api}?all=true`)).json()) as { workloads: { name: string }[] }).workloads.map((w) => w.name);
  const deadline = Date.now() + 60_000;
  for (let left = await names(); left.length > 0 && Date.now() < deadline; left = await names()) {
    await fetch(`${api}/delete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ names: left }) });
    await sleep(500);
  }
  // a supervisor stops its server and then exits: give both a moment
  let running = await service.processes();
  for (let waited = 0; running.length > 0 && waited < 15_000; waited += 500) {
    await sleep(500);
    running = await service.processes();
  }
  return running;
}

async function fuzzService(service: RunningService, options: { requests: number; seed: number; concurrency: number; progress?: (line: string) => void }): Promise<ServiceReport> {
  const document = await (await fetch(`http://127.0.0.1:${String(service.port)}/openapi.json`)).json();
  const next = createCaseGenerator({ operations: operationsOf(document), document, seed: options.seed });
  const report: ServiceReport = { requests: 0, answers: {}, serverErrors: 0, badErrorBodies: 0, noAnswer: 0, problems: [] };
  const classes = new Map<string, Problem & { requestId: string; size: number }>();
  let generated = 0;

  const worker = async () => {
    // cases are made as workers take them, in the seed's order: making them all first would stall
    // this process for seconds (some bodies are 11 MiB) while the other service's requests wait
    while (generated < options.requests) {
      generated += 1;
      const fuzzCase = next();
      const outcome = await sendRaw(service.port, fuzzCase.payload, { head: fuzzCase.head, timeoutMs: 30_000 });
      report.requests += 1;
      const status = outcome.kind === 'answer' ? `${String(outcome.response.status).slice(0, 1)}xx` : 'none';
      report.answers[status] = (report.answers[status] ?? 0) + 1;
      if (report.requests % 1000 === 0) options.progress?.(`${service.name}: ${String(report.requests)} requests`);
      const kind = judge(fuzzCase, outcome);
      if (kind === undefined) continue;
      if (kind === '5xx') report.serverErrors += 1;
      else if (kind === 'closed with no answer') report.noAnswer += 1;
      else report.badErrorBodies += 1;
      const mutationClass = fuzzCase.mutation.replace(/= .*$/, '= ...');
      const key = `${kind}|${fuzzCase.operation}|${mutationClass}|${outcome.kind === 'answer' ? String(outcome.response.status) : ''}`;
      const known = classes.get(key);
      const requestId = /x-request-id: (fuzz-\d+)/.exec(fuzzCase.payload.toString('latin1'))?.[1] ?? '';
      const candidate = { kind, operation: fuzzCase.operation, mutation: fuzzCase.mutation, count: (known?.count ?? 0) + 1, request: showRequest(fuzzCase.payload), outcome: describeOutcome(outcome), requestId, size: fuzzCase.payload.length };
      classes.set(key, known && known.size <= candidate.size ? { ...known, count: candidate.count } : candidate);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  await sleep(500);
  const log = service.log();
  report.problems = [...classes.values()].map(({ requestId, size: _size, ...problem }) => {
    const logged = problem.kind === '5xx' ? loggedError(log, requestId) : undefined;
    const serverLog = logged === undefined ? undefined : shorten(logged, 600);
    return { ...problem, ...(serverLog !== undefined && { serverLog }) };
  });
  return report;
}

async function fuzzAndClean(service: RunningService, options: { requests: number; seed: number; concurrency: number; progress?: (line: string) => void }): Promise<ServiceReport> {
  options.progress?.(`${service.name}: listening on ${String(service.port)}`);
  const report = await fuzzService(service, options);
  if (service.name !== 'runtime') return report;
  const left = await removeWorkloads(service);
  report.leakedProcesses = left.length;
  if (left.length > 0) {
    const outcome = `still running after every workload was deleted: ${left.map(({ pid, command }) => `${String(pid)} (${command})`).join(', ')}`;
    report.problems.push({ kind: 'process left running', operation: '-', mutation: '-', count: left.length, request: '-', outcome });
    // the run must not leave them behind: this run's runtime started them
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // it ended by itself meanwhile
      }
    }
  }
  return report;
}

/**
 * Starts the registry server and the local runtime, sends each `requests` generated bad requests over
 * raw sockets (both services at once), deletes every workload the runtime was left with, and reports
 * every answer outside the contract: a 5xx, a 4xx without the `{error}` body, a connection closed
 * without an answer, a process left running.
 */
export async function runFuzz(options: { requests: number; seed: number; concurrency?: number; progress?: (line: string) => void }): Promise<FuzzReport> {
  const started = await Promise.allSettled([startRegistry(), startRuntime()]);
  const services = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  try {
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const settings = { ...options, concurrency: options.concurrency ?? 4 };
    const reports = await Promise.all(services.map((service) => fuzzAndClean(service, settings)));
    const report: FuzzReport = { seed: options.seed, requestsPerService: options.requests, services: {}, problems: 0 };
    services.forEach((service, index) => {
      const serviceReport = reports[index];
      if (!serviceReport) return;
      report.services[service.name] = serviceReport;
      report.problems += serviceReport.problems.reduce((sum, problem) => sum + problem.count, 0);
    });
    return report;
  } finally {
    await Promise.all(services.map((service) => service.stop()));
  }
}
