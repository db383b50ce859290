import type { Attributes } from '@opentelemetry/api';
import type { Tracing } from './tracing.js';

type StartTimer<L extends string> = (labels?: Partial<Record<L, string | number>>) => (labels?: Partial<Record<L, string | number>>) => number;

export interface TimedWork<L extends string> {
  /** Span name from the start labels. */
  name(labels: Partial<Record<L, string | number>>): string;
  attributes(labels: Partial<Record<L, string | number>>): Attributes;
  /** Whether the end labels tell a failure. */
  failed?(labels: Partial<Record<L, string | number>>): boolean;
}

/**
 * A histogram whose timers are spans too: each `startTimer` opens a span that is active for the rest
 * of the timed work (its SQL becomes children) and ends, with the end labels as attributes, when the
 * timer stops. Traces work that is already timed (a source sync) without touching its code.
 */
export function traceTimers<L extends string, H extends { startTimer: StartTimer<L> }>(histogram: H, tracing: Tracing, work: TimedWork<L>): H {
  const startTimer: StartTimer<L> = (startLabels = {}) => {
    const stop = histogram.startTimer(startLabels);
    const span = tracing.startSpan(work.name(startLabels), { attributes: work.attributes(startLabels) });
    tracing.enter(span);
    return (endLabels = {}) => {
      span.setAttributes(work.attributes(endLabels));
      if (work.failed?.(endLabels)) tracing.markError(span, 'failed');
      tracing.endSpan(span);
      return stop(endLabels);
    };
  };
  return new Proxy(histogram, {
    get(target, property) {
      if (property === 'startTimer') return startTimer;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
