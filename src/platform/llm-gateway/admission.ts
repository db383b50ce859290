import type { BudgetHold, BudgetLedger } from '../budgets/ledger.js';
import type { PlatformConfig } from '../config.js';
import type { PricedModel, PricingCatalog } from '../pricing/catalog.js';
import type { UsageEvent } from '../usage/schemas.js';
import { modelLimitsOf, reservationBound } from './bounds.js';
import type { GatewayRequest } from './event.js';
import type { ProviderUpstream, Upstreams } from './upstream.js';
import type { GatewayErrorStatus } from './wire.js';

/*
 * Checks 4–8 of admission (PLATFORM-API Part 3 §1.1), in the table's order, for a request whose body
 * and caller passed checks 1–3.
 */

export type Admission =
  | { admitted: true; priced: PricedModel; upstream: ProviderUpstream; hold: BudgetHold }
  /** `priced`: the model when it resolved (the refusal's event names it). */
  | { admitted: false; status: GatewayErrorStatus; code: string; detail: string; priced: PricedModel | undefined };

export interface AdmissionOptions {
  catalog: PricingCatalog;
  upstreams: Upstreams;
  ledger: BudgetLedger;
  limits: Pick<PlatformConfig['llmGateway'], 'modelLimits' | 'defaultModelLimits'>;
  /** The event written if the reservation is reclaimed after a crash. */
  pendingEvent: (request: GatewayRequest, priced: PricedModel) => UsageEvent;
}

export interface Admitter {
  admit(request: GatewayRequest): Promise<Admission>;
}

export function createAdmitter(options: AdmissionOptions): Admitter {
  const { catalog, upstreams, ledger, limits } = options;
  return {
    async admit(request) {
      const requested = request.requestedModel;
      const priced = catalog.resolve(requested, upstreams.preferredFor(request.format));
      if (!priced) {
        return { admitted: false, status: 403, code: 'model_unpriceable', detail: `the model ${JSON.stringify(requested)} has no price in the pricing catalog in effect`, priced };
      }
      const upstream = upstreams.get(priced.provider);
      if (!upstream?.serves(request.format)) {
        const where = upstream ? `is not served on ${request.route}` : `has no configured upstream provider ${JSON.stringify(priced.provider)}`;
        return { admitted: false, status: 404, code: 'model_not_found', detail: `the model ${JSON.stringify(requested)} (${priced.provider}/${priced.model}) ${where}`, priced };
      }
      const policy = request.modelAdmission;
      if (!policy.allowed) return { admitted: false, status: 403, code: 'model_not_allowed', detail: policy.message ?? 'no AI policy allows this model for you', priced };
      const bound = reservationBound(request.format, request.body, request.rawBody.length, priced, modelLimitsOf(limits, priced));
      const decision = await ledger.admit({
        eventId: request.eventId,
        at: request.at,
        caller: { subject: request.caller.subject, groupIds: request.caller.groupIds },
        maxCost: bound.maxCost,
        pendingEvent: options.pendingEvent(request, priced),
      });
      if (!decision.admitted) return { admitted: false, status: decision.code === 'budget_exhausted' ? 402 : 403, code: decision.code, detail: decision.message, priced };
      return { admitted: true, priced, upstream, hold: decision.hold };
    },
  };
}
